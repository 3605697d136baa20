import { randomBytes } from 'crypto';
import { AddressInfo } from 'net';
import { SMTPServer } from 'smtp-server';
import { PoolJobs } from '../backend/src/modules/pool/pool.job';
import { MAIL_QUEUE } from '../backend/src/modules/mail/mail.jobs';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { bullQueue } from './helpers/jobs';
import { eventually } from './helpers/redemptions';
import { startRedisServer, TestRedisServer } from './helpers/redis';

/**
 * MAIL_CONCURRENCY: a worker sends that many order e-mails at once, no more. The SMTP server here holds every
 * message at DATA until the test lets it go, so the e-mails in flight can be counted.
 */
describe('order e-mails in flight per worker (MAIL_CONCURRENCY)', () => {
  let redis: TestRedisServer;
  let t: TestApp;
  let server: SMTPServer;
  const held: Array<() => void> = [];
  /** The recipients of every message the server has accepted, in order: each test counts its own. */
  const delivered: string[] = [];

  beforeAll(async () => {
    server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, session, callback) {
        stream.resume();
        stream.on('end', () =>
          held.push(() => {
            delivered.push(...session.envelope.rcptTo.map((to) => to.address));
            callback();
          }),
        );
      },
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    redis = await startRedisServer();
    t = await startTestApp({
      SMTP_URL: `smtp://127.0.0.1:${(server.server.address() as AddressInfo).port}`,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
      MAIL_CONCURRENCY: '3',
    });
  });
  afterAll(async () => {
    held.splice(0).forEach((release) => release());
    await t.close();
    await redis.stop();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('sends 3 at once; the others wait in the queue and go out as those finish, each once', async () => {
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const codes = await addCodes(
      t.db,
      mac,
      Array.from({ length: 7 }, () => randomCode('CONC')),
    );
    const recipients = codes.map((_, i) => `conc${i}@example.com`);
    for (const [i, code] of codes.entries()) {
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email: recipients[i] }))
        .expect(201);
    }
    const mine = () => delivered.filter((to) => recipients.includes(to));
    const queue = bullQueue(t, MAIL_QUEUE);
    const counts = async () => ({
      held: held.length,
      active: await queue.getActiveCount(),
      waiting: await queue.getWaitingCount(),
    });

    // Every job is in the queue and three of them hold a message at the server.
    expect(
      await eventually(
        async () => {
          const c = await counts();
          return c.held === 3 && c.active + c.waiting === 7 && c;
        },
        20_000,
        'three e-mails at the server',
      ),
    ).toEqual({ held: 3, active: 3, waiting: 4 });

    // One finishes: the next one takes its place.
    held.shift()!();
    expect(
      await eventually(
        async () => {
          const c = await counts();
          return c.held === 3 && c.active + c.waiting === 6 && c;
        },
        20_000,
        'the next e-mail at the server',
      ),
    ).toEqual({ held: 3, active: 3, waiting: 3 });

    // The rest, as they come.
    await eventually(
      async () => {
        held.splice(0).forEach((release) => release());
        return mine().length === 7 && (await queue.getActiveCount()) + (await queue.getWaitingCount()) === 0;
      },
      20_000,
      'every e-mail delivered',
    );
    expect(mine().sort()).toEqual([...recipients].sort());
    const rows = await t.db.query(
      `SELECT r.email_status, count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE v.code = ANY($1) GROUP BY 1`,
      [codes],
    );
    expect(rows).toEqual([{ email_status: 'sent', n: 7 }]);
  });

  it('runs the pool alerts of the same queue through the same handler', async () => {
    const product = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [user] = await t.db.query(`SELECT id, email FROM admin_users WHERE username = 'admin'`);
    await t.db.query(
      `INSERT INTO pool_alerts (product_id, admin_user_id, alert_day, recipient, product_name, available_activations,
                                redeemed_last_7_days, days_left, created_at)
       VALUES ($1, $2, '2031-03-10', $3, 'Queued product', 0, 0, NULL, now() - interval '1 hour')`,
      [product, user.id, user.email],
    );
    const before = delivered.length;
    await t.app.get(PoolJobs).sweep();
    const row = await eventually(
      async () => {
        held.splice(0).forEach((release) => release());
        const [r] = await t.db.query(`SELECT status, attempts FROM pool_alerts WHERE product_name = 'Queued product'`);
        return r.status !== 'pending' && r;
      },
      20_000,
      'the alert sent',
    );
    expect(row).toEqual({ status: 'sent', attempts: 1 });
    expect(delivered.slice(before)).toEqual([user.email]);
  });
});
