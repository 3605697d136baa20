import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { DataCipher } from '../backend/src/config/data-cipher';
import { createMigratedDatabase, TestDatabase } from './helpers/database';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  randomCode,
  redeemBody,
  testCiphers,
} from './helpers/factories';
import { expectNothingPartial } from './helpers/failures';
import { httpFrom, Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './helpers/processes';
import { startRedisServer, TestRedisServer } from './helpers/redis';
import { eventually } from './helpers/redemptions';
import { DataAnswer, freePort, startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { HookAnswer, RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';

const ADMIN_PASSWORD = 'W0rker!Crash#Admin';

/**
 * Issue 55: the Bull worker (`npm run worker`: the built app's `--worker`, REDIS_URL set, WORKERS_IN_API=false) killed
 * with SIGKILL in the middle of a job, while the webhook receiver or the SMTP server holds the job's request
 * unanswered; a new worker is started. Each job is done exactly once afterwards: one answered delivery, one sign-in
 * e-mail delivered and usable, one low-pool alert per admin. The dead worker's job comes back when Bull finds it
 * stalled: its lock lapsed, then a stalled check (JOB_LOCK_MS, 3 s here; 30 s by default, 60-90 s a case); until then
 * the sweeps cannot queue its id again.
 * (The order e-mail's case: test/failure-mail-crash.e2e-spec.ts.)
 */
describe('failure paths: the Bull worker killed mid-job', () => {
  jest.setTimeout(240_000);
  let redis: TestRedisServer;
  let database: TestDatabase;
  let db: DataSource;
  let smtp: TestSmtpServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let dataDir: string;
  let env: Record<string, string>;
  let api: Spawned & { url: string };
  let worker: Spawned;
  let admin: Record<string, string>;
  let product: string;
  /** The subject whose next message the SMTP server holds unanswered, and what the receiver answers next. */
  let holdSubject: string | undefined;
  let nextHook: HookAnswer | undefined;
  let held = 0;

  const startWorker = () => startBuiltApp('worker', env, { worker: true });

  beforeAll(async () => {
    redis = await startRedisServer();
    database = await createMigratedDatabase('ovr_wcrash');
    smtp = await startSmtpServer({
      onMessage: (mail): DataAnswer => {
        if (!holdSubject || !mail.subject?.startsWith(holdSubject)) return 'accept';
        holdSubject = undefined;
        held++;
        return 'stall';
      },
    });
    receiver = await startReceiver(() => {
      const answer = nextHook ?? { status: 200 };
      nextHook = undefined;
      return answer;
    });
    dataDir = mkdtempSync(join(tmpdir(), 'ovr-wcrash-'));
    const dataKey = randomBytes(32).toString('base64');
    const port = await freePort();
    env = {
      // Not production: the receivers are on loopback over http (WEBHOOK_ALLOW_INSECURE_TARGETS).
      NODE_ENV: 'test',
      PUBLIC_URL: 'https://licences.example.test',
      DATABASE_URL: database.url,
      REDIS_URL: redis.url,
      REDIS_PREFIX: `ovr_wcrash_${randomBytes(4).toString('hex')}`,
      WORKERS_IN_API: 'false',
      JWT_SECRET: randomBytes(48).toString('base64'),
      DATA_KEY: dataKey,
      ADMIN_PASSWORD,
      SMTP_URL: smtp.url,
      DATA_DIR: dataDir,
      PORT: String(port),
      SERVE_FRONTEND: 'false',
      LOG_LEVEL: 'warn',
      DB_POOL_SIZE: '4',
      REDEEM_RATE_LIMIT: '0',
      GEO_BLOCKED_COUNTRIES: '',
      // A pool with fewer than 3 activations left alerts the admins (the pool alert's case).
      POOL_ALERT_MIN: '3',
      POOL_ALERT_DAYS: '7',
      // A dead worker's Bull job is found stalled within seconds, not the default 30 s lock and check.
      JOB_LOCK_MS: '3000',
      // A dead worker's claim lapses quickly and the next worker's sweep takes the row again.
      MAIL_CLAIM_SECONDS: '2',
      MAIL_SWEEP_INTERVAL_MS: '500',
      MAIL_SWEEP_AFTER_MS: '1000',
      MAIL_BACKOFF_MS: '200',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_BACKOFF_MS: '200',
      ...RECEIVERS_ON_LOOPBACK,
    };
    api = { ...startBuiltApp('api', env), url: `http://127.0.0.1:${port}` };
    worker = startWorker();
    await waitUntil(
      'the API to be healthy',
      async () => (await httpFrom('127.0.0.1', `${api.url}/api/health`)).status === 200,
      { timeoutMs: 90_000, processes: [api, worker] },
    );
    const login = await httpFrom('127.0.0.1', `${api.url}/api/admin/login`, {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    admin = { Authorization: `Bearer ${login.body.accessToken}` };
    db = new DataSource({ type: 'postgres', url: database.url, extra: { max: 2 } });
    await db.initialize();
    testCiphers.set(db, new DataCipher(Buffer.from(dataKey, 'base64')));
    product = await licenseManagedProduct(db, `Worker crash ${randomCode('P')}`);
  });

  afterAll(async () => {
    await stopAllSpawned();
    await db?.destroy();
    await receiver?.close();
    await smtp?.close();
    await redis?.stop();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** SIGKILL to the worker, then a new one: the restart. */
  const restartWorker = async () => {
    const exited = new Promise((resolve) => worker.child.once('exit', resolve));
    worker.child.kill('SIGKILL');
    await exited;
    worker = startWorker();
  };
  const redeem = async (email: string) => {
    const [code] = await addCodes(db, product, [randomCode('WC')]);
    await addLicenseKey(db, product, `WC-${randomCode('K')}`);
    const res = await httpFrom('127.0.0.1', `${api.url}/api/redeem-voucher`, {
      body: redeemBody({ voucherCode: code, email }),
    });
    expect(res.status).toBe(201);
    const [{ id }] = await db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    return id as string;
  };
  const orderMailSent = (id: string) =>
    eventually(
      async () =>
        (await db.query(`SELECT email_status FROM redemptions WHERE id = $1`, [id]))[0].email_status === 'sent',
      30_000,
      'the order e-mail to be sent',
    );

  it('a webhook delivery whose receiver holds the request: delivered once after the restart', async () => {
    const created = await httpFrom('127.0.0.1', `${api.url}/api/webhooks`, {
      headers: admin,
      body: { url: receiver.url, events: ['redemption.created'] },
    });
    expect(created.status).toBe(201);
    const before = receiver.received.length;
    nextHook = 'hang';
    const redemption = await redeem(`hook.${randomCode('E').toLowerCase()}@example.com`);
    await eventually(async () => receiver.received.length > before, 30_000, 'the delivery to reach the receiver');
    const [first] = receiver.received.slice(before);
    expect(first.open).toBe(true);
    await restartWorker();
    await waitUntil('the held request to be cut', () => !first.open, { timeoutMs: 10_000 });

    const deliveries = async () =>
      db.query(
        `SELECT status, response_status FROM webhook_deliveries
          WHERE endpoint_id = $1 AND payload::text LIKE '%' || $2 || '%'`,
        [created.body.id, redemption],
      );
    await eventually(
      async () => (await deliveries())[0]?.status === 'delivered',
      180_000,
      'the delivery to be delivered',
    );
    expect(await deliveries()).toEqual([{ status: 'delivered', response_status: 200 }]);
    // The receiver answered it once: the cut request never got an answer, the one after it did, with the same body.
    const requests = receiver.received.slice(before).filter((h) => h.body.includes(redemption));
    expect(requests.map((h) => h.answered)).toEqual([undefined, 200]);
    expect(requests[1].body).toBe(requests[0].body);
    await expectNothingPartial(db);
    await httpFrom('127.0.0.1', `${api.url}/api/webhooks/${created.body.id}`, { method: 'DELETE', headers: admin });
  });

  it('a sign-in link whose SMTP server holds the message: sent once after the restart, and it works', async () => {
    const email = `link.${randomCode('E').toLowerCase()}@example.com`;
    await orderMailSent(await redeem(email));
    const heldBefore = held;
    holdSubject = 'Sign in';
    const asked = await httpFrom('127.0.0.1', `${api.url}/api/customer/access`, { body: { email } });
    expect(asked.status).toBe(202);
    await eventually(async () => held > heldBefore, 30_000, 'the SMTP server to hold the sign-in e-mail');
    await restartWorker();

    const status = async () =>
      (await db.query(`SELECT status FROM customer_access_links WHERE email = $1`, [email])).map(
        (r: { status: string }) => r.status,
      );
    await eventually(async () => (await status())[0] === 'sent', 180_000, 'the sign-in link to be sent');
    expect(await status()).toEqual(['sent']);
    const links = smtp.messages.filter(
      (m) => JSON.stringify(m.to ?? '').includes(email) && m.subject?.startsWith('Sign in'),
    );
    expect(links).toHaveLength(1);
    const token = /my-licences\?token=([A-Za-z0-9_-]+)/.exec(links[0].text ?? '')?.[1];
    expect(token).toBeDefined();
    const session = await httpFrom('127.0.0.1', `${api.url}/api/customer/session`, { body: { token } });
    expect(session.status).toBe(200);
  });

  it('a low-pool alert whose SMTP server holds the message: sent once to each admin after the restart', async () => {
    const own = await licenseManagedProduct(db, `Pool alert ${randomCode('P')}`);
    const [{ name }] = await db.query(`SELECT name FROM products WHERE id = $1`, [own]);
    // Two activations, POOL_ALERT_MIN 3: the redemption leaves one, under the line.
    for (let i = 0; i < 2; i++) await addLicenseKey(db, own, `PA-${randomCode('K')}`);
    const [code] = await addCodes(db, own, [randomCode('PA')]);
    const heldBefore = held;
    holdSubject = `Licence pool low: ${name}`;
    const res = await httpFrom('127.0.0.1', `${api.url}/api/redeem-voucher`, {
      body: redeemBody({ voucherCode: code }),
    });
    expect(res.status).toBe(201);
    await eventually(async () => held > heldBefore, 30_000, 'the SMTP server to hold the pool alert');
    await restartWorker();

    const alerts = async () =>
      db.query(`SELECT recipient AS email, status FROM pool_alerts WHERE product_id = $1 ORDER BY recipient`, [own]);
    await eventually(
      async () => {
        const rows = await alerts();
        return rows.length > 0 && rows.every((r: { status: string }) => r.status === 'sent');
      },
      180_000,
      'the pool alerts to be sent',
    );
    const rows: Array<{ email: string }> = await alerts();
    const delivered = smtp.messages.filter((m) => m.subject === `Licence pool low: ${name}`);
    // One e-mail per admin: the held one was never accepted, its resend was.
    expect(delivered.map((m) => [m.to].flat()[0]!.value[0].address).sort()).toEqual(rows.map((r) => r.email));
  });
});
