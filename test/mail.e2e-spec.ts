import { randomBytes } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { JobQueue } from '../backend/src/modules/jobs/job-queue';
import { MAIL_QUEUE } from '../backend/src/modules/mail/mail.jobs';
import { REDEMPTION_MAIL } from '../backend/src/modules/redemption/order-mail';
import { RedemptionMailJob } from '../backend/src/modules/mail/redemption-mail.job';
import { MAINTENANCE_QUEUE } from '../backend/src/modules/jobs/job';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { bullQueue, watchJobs } from './helpers/jobs';
import { startRedisServer, TestRedisServer } from './helpers/redis';
import { closedPort, startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { randomHex } from './helpers/seed';

async function waitFor<T>(probe: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** The `nth` message (1-based) the server received for `recipient`, once it has arrived. */
const mailTo = async (server: TestSmtpServer, recipient: string, nth = 1) =>
  (
    await waitFor(
      async () => server.messages.filter((m) => (m.to as { text: string } | undefined)?.text === recipient),
      (found) => found.length >= nth,
    )
  )[nth - 1];

/** Waits for a synchronous condition. */
const eventuallyTrue = (check: () => boolean, what: string) =>
  waitFor(async () => check(), Boolean).catch((err) => {
    throw new Error(`${what}: ${err.message}`);
  });

const emailStatus = (t: TestApp, code: string) =>
  t.db
    .query(
      `SELECT r.id, r.email_status FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    )
    .then((rows) => rows[0] as { id: string; email_status: string } | undefined);

const logs = (t: TestApp, redemptionId: string) =>
  t.db.query(
    `SELECT provider, status, recipient FROM email_logs WHERE redemption_id = $1 ORDER BY created_at, provider`,
    [redemptionId],
  );

describe('order e-mail through SMTP (in-process jobs)', () => {
  let primary: TestSmtpServer;
  let fallback: TestSmtpServer;
  let t: TestApp;

  beforeAll(async () => {
    primary = await startSmtpServer();
    fallback = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: primary.url, SMTP_FALLBACK_URL: fallback.url });
  });
  afterAll(async () => {
    await t.close();
    await primary.close();
    await fallback.close();
  });
  afterEach(() => jest.restoreAllMocks());

  it('sends the product template with placeholders filled and values escaped, and marks it sent', async () => {
    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    await t.db.query(
      `UPDATE products SET email_subject = 'Key for {{customer_name}}',
         email_template = '<p>Hi {{ customer_name }}</p><p>{{voucher_code}} {{license_key}} {{download_link}}</p>' WHERE id = $1`,
      [proPlus],
    );
    await addLicenseKey(t.db, proPlus, 'MAIL1-KEY22-ABCDE', { downloadLink: 'https://dl.example.com/a?x=1&y=2' });
    const [code] = await addCodes(t.db, proPlus, [randomCode('MAIL')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, firstName: "D'Arcy", lastName: 'Smith', email: 'darcy@example.com' }))
      .expect(201);

    const mail = await mailTo(primary, 'darcy@example.com');
    expect(mail.subject).toBe("Key for D'Arcy Smith");
    expect(mail.html).toContain('<p>Hi D&#39;Arcy Smith</p>');
    expect(mail.html).toContain(`${code} MAIL1-KEY22-ABCDE https://dl.example.com/a?x=1&amp;y=2`);
    expect(mail.text).toContain('MAIL1-KEY22-ABCDE');

    const row = await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    );
    expect(await logs(t, row!.id)).toEqual([{ provider: 'primary', status: 'sent', recipient: 'darcy@example.com' }]);
  });

  it('escapes markup that reached a redemption record, e.g. <script> in a name', async () => {
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    await t.db.query(`UPDATE products SET email_template = '<p>Hello {{customer_name}}</p>' WHERE id = $1`, [mac]);
    const [code] = await addCodes(t.db, mac, [randomCode('XSS')]);
    const email = `xss.${randomHex(3)}@example.com`;
    await t.db.query(
      `INSERT INTO customers (first_name, last_name, email) VALUES ('<script>alert(1)</script>', 'X', $1)`,
      [email],
    );
    // The redemption keeps the (validated) name from the form, not the customer row's; put the markup there after.
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email }))
      .expect(201);
    expect(res.body.success).toBe(true);
    const mail = await mailTo(primary, email);
    expect(mail.html).toContain('Hello Ann Lee');

    const row = await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    );
    await t.db.query(`UPDATE redemptions SET first_name = '<script>alert(1)</script>' WHERE id = $1`, [row!.id]);
    await t.db.query(`UPDATE redemptions SET email_status = 'pending' WHERE id = $1`, [row!.id]);
    t.app.get(JobQueue).add(REDEMPTION_MAIL, { redemptionId: row!.id });
    const again = await mailTo(primary, email, 2);
    expect(again.html).toContain('Hello &lt;script&gt;alert(1)&lt;/script&gt; Lee');
    expect(again.html).not.toContain('<script>');
  });

  it('delivers a job given twice once', async () => {
    const jobs = watchJobs(t);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, mac, [randomCode('TWICE')]);
    const email = `twice.${randomHex(3)}@example.com`;
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email }))
      .expect(201);
    await mailTo(primary, email);
    const row = await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    );
    const handlers = t.app.get(RedemptionMailJob);
    const outcomes = await Promise.all([
      handlers.send(row!.id, { attempt: 1, attempts: 3 }),
      handlers.send(row!.id, { attempt: 1, attempts: 3 }),
    ]);
    expect(outcomes).toEqual(['skipped', 'skipped']);
    // Every job has finished and the sweep has run since: nothing else can send it.
    await jobs.settled();
    expect(primary.messages.filter((m) => (m.to as { text: string }).text === email)).toHaveLength(1);
    expect(await logs(t, row!.id)).toHaveLength(1);
  });

  it('falls back to the second provider when the primary is down', async () => {
    const dead = await closedPort();
    const t2 = await startTestApp({ SMTP_URL: `smtp://127.0.0.1:${dead}`, SMTP_FALLBACK_URL: fallback.url });
    try {
      const mac = await productId(t2.db, PRODUCTS.homeBusinessMac);
      const [code] = await addCodes(t2.db, mac, [randomCode('FALL')]);
      await t2
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email: 'fb@example.com' }))
        .expect(201);
      await mailTo(fallback, 'fb@example.com');
      const row = await waitFor(
        () => emailStatus(t2, code),
        (r) => r?.email_status === 'sent',
      );
      expect(await logs(t2, row!.id)).toEqual([
        { provider: 'fallback', status: 'sent', recipient: 'fb@example.com' },
        { provider: 'primary', status: 'failed', recipient: 'fb@example.com' },
      ]);
    } finally {
      await t2.close();
    }
  });

  it('marks the e-mail failed after its retries when both providers are down', async () => {
    const t3 = await startTestApp({
      SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
      SMTP_FALLBACK_URL: `smtp://127.0.0.1:${await closedPort()}`,
      MAIL_ATTEMPTS: '3',
      MAIL_BACKOFF_MS: '100',
    });
    try {
      const mac = await productId(t3.db, PRODUCTS.homeBusinessMac);
      const [code] = await addCodes(t3.db, mac, [randomCode('DOWN')]);
      await t3
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
      const row = await waitFor(
        () => emailStatus(t3, code),
        (r) => r?.email_status === 'failed',
      );
      const attempts = await logs(t3, row!.id);
      expect(attempts).toHaveLength(6);
      expect(attempts.every((a: { status: string }) => a.status === 'failed')).toBe(true);
      const [{ email_attempts }] = await t3.db.query(`SELECT email_attempts FROM redemptions WHERE id = $1`, [row!.id]);
      expect(email_attempts).toBe(3);
    } finally {
      await t3.close();
    }
  });

  it('a manual redemption gets no e-mail until it has a licence', async () => {
    const jobs = watchJobs(t);
    const [product] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, email_subject, email_template)
       VALUES ('Empty Pool (Windows)', true, 'Key', '<p>{{license_key}}</p>') RETURNING id`,
    );
    const [code] = await addCodes(t.db, product.id, [randomCode('MAN')]);
    const email = `manual.${randomHex(3)}@example.com`;
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email }))
      .expect(201);
    const row = await emailStatus(t, code);
    // Two sweeps that ran once the row was old enough for one (MAIL_SWEEP_AFTER_MS) had their chance to pick it up by mistake.
    await jobs.settled({ since: Date.now() + t.config.mailSweepAfterMs, count: 2 });
    expect(primary.messages.filter((m) => (m.to as { text: string }).text === email)).toEqual([]);
    expect((await emailStatus(t, code))!.email_status).toBe('pending');
    const [{ awaiting_license }] = await t.db.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [
      row!.id,
    ]);
    expect(awaiting_license).toBe(true);
  });
});

describe('order e-mail with no SMTP configured', () => {
  it('writes an .eml file and counts it as sent', async () => {
    const t = await startTestApp();
    try {
      const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
      const [code] = await addCodes(t.db, mac, [randomCode('EML')]);
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email: 'eml@example.com' }))
        .expect(201);
      await waitFor(
        () => emailStatus(t, code),
        (r) => r?.email_status === 'sent',
      );
      const dir = join(t.dataDir, 'mail');
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
      expect(files).toHaveLength(1);
      expect(readFileSync(join(dir, files[0]), 'utf8')).toContain('To: eml@example.com');
    } finally {
      await t.close();
    }
  });
});

describe('order e-mail through Bull on Redis', () => {
  let smtp: TestSmtpServer;
  let redis: TestRedisServer;
  let t: TestApp;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    redis = await startRedisServer();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
      MAIL_SWEEP_INTERVAL_MS: '1000',
      MAIL_SWEEP_AFTER_MS: '1500',
    });
  });
  afterAll(async () => {
    await t.close();
    await redis.stop();
    await smtp.close();
  });
  afterEach(() => jest.restoreAllMocks());

  /** Both queues' Redis connections are up. */
  const queuesReady = () =>
    eventuallyTrue(
      () => [MAIL_QUEUE, MAINTENANCE_QUEUE].every((name) => bullQueue(t, name).client.status === 'ready'),
      'the queues to reconnect',
    );
  /** The app has seen Redis go away (its queue connection is no longer ready). */
  const outageSeen = () =>
    eventuallyTrue(() => bullQueue(t, MAIL_QUEUE).client.status !== 'ready', 'the app to notice the outage');

  it('delivers through the queue', async () => {
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, mac, [randomCode('BULL')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email: 'bull@example.com' }))
      .expect(201);
    await mailTo(smtp, 'bull@example.com');
    await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    );
  });

  it('redeems while Redis is down and delivers the e-mail once after Redis is back', async () => {
    const jobs = watchJobs(t);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, mac, [randomCode('OUTAGE')]);
    await redis.stop();
    await outageSeen();

    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email: 'outage@example.com' }));
    // The redemption queues nothing (the relay reads its pending e-mail), so Redis being down changes nothing for it.
    expect(res.status).toBe(201);
    expect((await emailStatus(t, code))!.email_status).toBe('pending');

    await redis.start();
    await waitFor(
      async () => smtp.messages.some((m) => (m.to as { text: string }).text === 'outage@example.com'),
      Boolean,
      40_000,
    );
    await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
      40_000,
    );
    // The relay's job and the sweep's may both run: the claim lets only one of them send. Both have had their turn
    // once the queue is empty and two more sweeps have run.
    await jobs.settled({ count: 2, timeoutMs: 40_000 });
    const delivered = smtp.messages.filter((m) => (m.to as { text: string }).text === 'outage@example.com');
    expect(delivered).toHaveLength(1);
  });

  it('still sweeps after Redis restarted empty: an e-mail whose job was lost with Redis goes out once', async () => {
    // Found by `npm run bench -- resilience`: the sweep is a repeatable job kept in Redis, so a Redis
    // restarted without persistence forgot it, and e-mails whose jobs were lost stayed pending for good.
    const jobs = watchJobs(t);
    await redis.stop();
    await outageSeen();
    await redis.start();
    await queuesReady();
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, mac, [randomCode('LOST')]);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code, email: 'lost@example.com' }));
    expect(res.status).toBe(201);
    await mailTo(smtp, 'lost@example.com');
    const { id } = (await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    ))!;
    // The state a lost job leaves: pending, no claim, no job in the (new, empty) Redis.
    await t.db.query(`UPDATE redemptions SET email_status = 'pending', email_locked_until = NULL WHERE id = $1`, [id]);

    await mailTo(smtp, 'lost@example.com', 2);
    await waitFor(
      () => emailStatus(t, code),
      (r) => r?.email_status === 'sent',
    );
    await jobs.settled({ count: 2 }); // more sweeps, every job done: nothing sent twice
    const delivered = smtp.messages.filter((m) => (m.to as { text: string }).text === 'lost@example.com');
    expect(delivered).toHaveLength(2);
  });
});
