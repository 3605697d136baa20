import { randomBytes } from 'crypto';
import { Client, Pool } from 'pg';
import { startTestApp, TestApp } from './helpers/app';
import { PG_ADMIN_URL } from './helpers/database';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  randomCode,
  redeemBody,
  RedeemBody,
} from './helpers/factories';
import { expectNothingPartial, expectOneMessageEach, orderMailsSent } from './helpers/failures';
import { httpFrom, HttpAnswer } from './helpers/processes';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * Issue 27: PostgreSQL "restarts" during a burst of redemptions. Restarting the machine's cluster would disturb the
 * suites running beside this one, so every backend of this suite's database is terminated (`pg_terminate_backend`),
 * twice, while redemptions are in flight: what the app sees of a restart (its connections die, new ones work).
 * Every 201 is durable, every failure a clean 503 with nothing partial, a retry with the original body (and the
 * page's Idempotency-Key) makes no second row, key or e-mail, the e-mails still go out, the app serves afterwards.
 */
describe('failure paths: the database connections die during a redemption burst', () => {
  jest.setTimeout(120_000);
  const BURST = 240;
  const PARALLEL = 12;
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Client;
  let product: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url, MAIL_CLAIM_SECONDS: '2', DB_POOL_SIZE: '8' });
    admin = new Client({ connectionString: PG_ADMIN_URL });
    await admin.connect();
    product = await licenseManagedProduct(t.db, `Restart ${randomCode('P')}`);
    for (let i = 0; i < BURST + 5; i++) await addLicenseKey(t.db, product, `RST-${randomCode('K')}`);
  });

  afterAll(async () => {
    await admin?.end();
    await t?.close();
    await smtp?.close();
  });

  /**
   * Terminates the test database's connections (the app's pool, its job runner's) but `spare`'s, waiting until each
   * is gone (PostgreSQL 14's timeout argument): what a restart does to them.
   */
  const terminateBackends = async (spare = 0) =>
    (
      await admin.query(
        `SELECT count(*) FILTER (WHERE pg_terminate_backend(pid, 10000))::int AS n
           FROM pg_stat_activity WHERE datname = $1 AND pid <> $2`,
        [t.database.name, spare],
      )
    ).rows[0].n as number;

  const redeem = (body: RedeemBody, key: string) =>
    httpFrom('127.0.0.1', `${t.baseUrl}/api/redeem-voucher`, { body, headers: { 'Idempotency-Key': key } });

  it('a connection that dies while held between two statements fails its holder only: no process ends', async () => {
    // Held as a COPY or a transaction holds one (no statement running), with no listener of the holder's own.
    const pool = (t.db.driver as unknown as { master: Pool }).master;
    const held = await pool.connect();
    const [{ pid }] = (await held.query('SELECT pg_backend_pid() AS pid')).rows;
    const closed = new Promise((resolve) =>
      (held as unknown as { connection: Client }).connection.once('end', resolve),
    );
    expect((await admin.query('SELECT pg_terminate_backend($1, 10000) AS ok', [pid])).rows[0].ok).toBe(true);
    // Its socket delivered PostgreSQL's FATAL and closed: an 'error' no one handled would have failed this test.
    await closed;
    await expect(held.query('SELECT 1')).rejects.toThrow();
    held.release(true);
    expect((await httpFrom('127.0.0.1', `${t.baseUrl}/api/health`)).status).toBe(200);
    // A product of its own: the burst's totals count the other one's redemptions.
    const own = await licenseManagedProduct(t.db, `Held ${randomCode('P')}`);
    const [code] = await addCodes(t.db, own, [randomCode('HLD')]);
    await addLicenseKey(t.db, own, `HLD-${randomCode('K')}`);
    expect((await redeem(redeemBody({ voucherCode: code }), randomBytes(16).toString('hex'))).status).toBe(201);
  });

  it('keeps every 201, fails cleanly otherwise, retries make nothing twice, and serves again', async () => {
    const codes = await addCodes(
      t.db,
      product,
      Array.from({ length: BURST }, () => randomCode('RST')),
    );
    const requests = codes.map((code) => ({
      body: redeemBody({ voucherCode: code }),
      key: randomBytes(16).toString('hex'),
    }));
    const answers: HttpAnswer[] = new Array(BURST);
    let done = 0;
    let terminated = 0;
    let held = 0;
    let next = 0;
    const faults = (async () => {
      // First with redemptions surely in flight: a lock holds them inside their statement (they upsert the product's
      // counters), then every connection dies, the lock's holder last. Then once more, wherever they are.
      await eventually(async () => done >= BURST / 4, 60_000, 'a quarter of the answers');
      const locker = new Client({ connectionString: t.database.url });
      await locker.connect();
      locker.on('error', () => undefined);
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE product_counts IN EXCLUSIVE MODE');
      const [{ pid: lockerPid }] = (await locker.query('SELECT pg_backend_pid() AS pid')).rows;
      const waitingRedemptions = async () =>
        (
          await admin.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
              WHERE datname = $1 AND wait_event_type = 'Lock' AND query LIKE '%SET is_redeemed = true%'`,
            [t.database.name],
          )
        ).rows[0].n as number;
      await eventually(
        async () => (await waitingRedemptions()) >= 4,
        30_000,
        'redemptions waiting inside their statement',
      );
      held = await waitingRedemptions();
      // The waiters die first, each gone before the lock is let go: none of them can finish its statement meanwhile.
      terminated += await terminateBackends(lockerPid);
      await locker.end().catch(() => undefined);
      await eventually(async () => done >= BURST / 2, 60_000, 'half of the answers');
      terminated += await terminateBackends();
    })();
    await Promise.all(
      Array.from({ length: PARALLEL }, async () => {
        while (next < BURST) {
          const i = next++;
          answers[i] = await redeem(requests[i].body, requests[i].key);
          done++;
        }
      }),
    );
    await faults;
    expect(terminated).toBeGreaterThan(0);
    // The redemptions held by the lock were in flight when their connections died: each failed.
    const failed = answers.map((a, i) => ({ a, i })).filter(({ a }) => a.status !== 201);
    expect(held).toBeGreaterThanOrEqual(4);
    expect(failed.length).toBeGreaterThanOrEqual(held);

    // Every failure is the clean 503 of a lost database connection (no SQL, no stack): the client may try again.
    for (const { a } of failed) {
      expect(a).toMatchObject({
        status: 503,
        headers: expect.objectContaining({ 'retry-after': '5' }),
        body: {
          statusCode: 503,
          message: 'The service is briefly unavailable. Please try again in a moment.',
          error: 'Service Unavailable',
        },
      });
    }
    // Every 201 is durable: its redemption is stored for that e-mail, its page shows the key.
    const stored = async (code: string) =>
      (
        await t.db.query(
          `SELECT c.email, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS keys
             FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id JOIN customers c ON c.id = r.customer_id
            WHERE v.code = $1`,
          [code],
        )
      )[0];
    for (const [i, a] of answers.entries()) {
      if (a.status !== 201) continue;
      expect(await stored(codes[i])).toEqual({ email: requests[i].body.email.toLowerCase(), keys: 1 });
      const page = await httpFrom('127.0.0.1', `${t.baseUrl}/api/success-token/${a.body.successToken}`);
      expect(page.status).toBe(200);
      expect(page.body.licenseKey).toMatch(/^RST-/);
    }
    await expectNothingPartial(t.db);

    // The app serves again; each failed request retried with its original body and key succeeds: 201 when nothing
    // was written, 200 (the same redemption, a fresh token) when the statement had committed before its answer died.
    const health = await eventually(
      async () => (await httpFrom('127.0.0.1', `${t.baseUrl}/api/health`)).status === 200,
      30_000,
      'health',
    );
    expect(health).toBe(true);
    for (const { i } of failed) {
      const again = await redeem(requests[i].body, requests[i].key);
      expect([200, 201]).toContain(again.status);
      expect(await stored(codes[i])).toEqual({ email: requests[i].body.email.toLowerCase(), keys: 1 });
    }
    // One redemption and one key per code, every key used once.
    const [totals] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM redemptions WHERE product_id = $1) AS redemptions,
              (SELECT count(*)::int FROM license_assignments a JOIN redemptions r ON r.id = a.redemption_id
                WHERE r.product_id = $1) AS assignments,
              (SELECT count(*)::int FROM license_keys WHERE product_id = $1 AND current_activations > 0) AS used_keys`,
      [product],
    );
    expect(totals).toEqual({ redemptions: BURST, assignments: BURST, used_keys: BURST });
    await expectNothingPartial(t.db);

    // Every e-mail goes out: once, or twice with one Message-ID where a status write died after the SMTP acceptance.
    await orderMailsSent(t.db, product, BURST, 90_000);
    // (The burst's own customers: another test of this file mails one more.)
    expectOneMessageEach(
      smtp,
      requests.map((r) => r.body.email),
    );
    // And a new customer is served as before.
    const [fresh] = await addCodes(t.db, product, [randomCode('RST')]);
    await addLicenseKey(t.db, product, `RST-${randomCode('K')}`);
    expect((await redeem(redeemBody({ voucherCode: fresh }), randomBytes(16).toString('hex'))).status).toBe(201);
    await expectNothingPartial(t.db);
  });
});
