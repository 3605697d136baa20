import { randomBytes } from 'crypto';
import { connect } from 'net';
import { Client } from 'pg';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import {
  expectDatabaseUnavailable,
  expectNothingPartial,
  expectOneMessageEach,
  orderMailsSent,
  retryingBurst,
} from './helpers/failures';
import { PgCluster, removeAllClusters, startPrimary } from './helpers/pg-cluster';
import { httpFrom } from './helpers/processes';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

/** Whether a TCP connection to the port is refused (nothing listens). */
const refused = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });

/**
 * Issue 55: PostgreSQL restarts during a burst of redemptions, with a window in which its port refuses connections
 * (test/failure-database.e2e-spec.ts terminates backends on a running server; this one stops the server). A private
 * cluster (test/helpers/pg-cluster.ts) is stopped with `pg_ctl stop -m fast` mid-burst, held down for 3 s, and
 * started again; the app is not restarted.
 */
describe('failure paths: PostgreSQL restarts, refusing connections for a while, during a redemption burst', () => {
  jest.setTimeout(90_000);
  const BURST = 120;
  const PARALLEL = 8;
  /** How long the server stays down: the fault's length, not a wait for a condition. */
  const DOWN_MS = 3_000;
  const DATABASE = 'ovr_restart';
  let cluster: PgCluster;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let product: string;

  beforeAll(async () => {
    cluster = await startPrimary();
    const admin = new Client({ connectionString: cluster.url() });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${DATABASE}`);
    await admin.end();
    smtp = await startSmtpServer();
    t = await startTestApp(
      { SMTP_URL: smtp.url, MAIL_CLAIM_SECONDS: '2', DB_POOL_SIZE: '8' },
      { database: { name: DATABASE, url: cluster.url(DATABASE), drop: async () => undefined } },
    );
    product = await licenseManagedProduct(t.db, `Restart ${randomCode('P')}`);
    for (let i = 0; i < BURST + 2; i++) await addLicenseKey(t.db, product, `RSR-${randomCode('K')}`);
  });

  afterAll(async () => {
    try {
      await t?.close();
      await smtp?.close();
    } finally {
      await removeAllClusters();
    }
  });

  it('answers 503 with Retry-After while refused, and serves again once the server is back', async () => {
    const codes = await addCodes(
      t.db,
      product,
      Array.from({ length: BURST }, () => randomCode('RSR')),
    );
    const requests = codes.map((code) => ({
      body: redeemBody({ voucherCode: code }),
      key: randomBytes(16).toString('hex'),
    }));
    let downFrom = 0;
    let downUntil = 0;
    let refusedWhileDown = false;
    let healthWhileDown = 0;
    const { attempts, succeeded } = await retryingBurst(t.baseUrl, requests, PARALLEL, async (burst) => {
      await eventually(async () => burst.succeeded.size >= BURST / 4, 60_000, 'a quarter of the redemptions');
      await cluster.stop('fast');
      downFrom = Date.now();
      refusedWhileDown = await refused(cluster.port);
      healthWhileDown = (await httpFrom('127.0.0.1', `${t.baseUrl}/api/health`)).status;
      // The redemptions meet the refused port for the whole window.
      await eventually(
        async () => burst.attempts.filter((a) => a.startedAt > downFrom).length >= PARALLEL,
        30_000,
        'redemptions sent while the server is down',
      );
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, downFrom + DOWN_MS - Date.now())));
      downUntil = Date.now();
      await cluster.start();
    });
    expect(succeeded.size).toBe(BURST);
    expect(refusedWhileDown).toBe(true);
    expect(healthWhileDown).toBe(503);

    // Every failure was the 503 of a lost or refused connection, also every one sent while the port refused.
    const failures = attempts.filter((a) => a.status !== 200 && a.status !== 201);
    failures.forEach(expectDatabaseUnavailable);
    const whileDown = attempts.filter((a) => a.startedAt > downFrom && a.endedAt < downUntil);
    expect(whileDown.length).toBeGreaterThanOrEqual(PARALLEL);
    whileDown.forEach(expectDatabaseUnavailable);
    // Serving again without a restart: within 10 s of the server's return, a redemption sent then succeeded.
    const servedAgain = attempts.filter((a) => a.startedAt > downUntil && (a.status === 200 || a.status === 201));
    expect(servedAgain.length).toBeGreaterThan(0);
    expect(Math.min(...servedAgain.map((a) => a.startedAt)) - downUntil).toBeLessThan(10_000);
    expect((await httpFrom('127.0.0.1', `${t.baseUrl}/api/health`)).status).toBe(200);

    // Every success is stored with its key and its page; one redemption per code, every key used once.
    for (const [i, a] of succeeded) {
      const rows = await t.db.query(
        `SELECT c.email, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS keys
           FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id JOIN customers c ON c.id = r.customer_id
          WHERE v.code = $1`,
        [codes[i]],
      );
      expect(rows).toEqual([{ email: requests[i].body.email.toLowerCase(), keys: 1 }]);
      const page = await httpFrom('127.0.0.1', `${t.baseUrl}/api/success-token/${a.body.successToken}`);
      expect(page.status).toBe(200);
      expect(page.body.licenseKey).toMatch(/^RSR-/);
    }
    const [totals] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM redemptions WHERE product_id = $1) AS redemptions,
              (SELECT count(*)::int FROM license_keys WHERE product_id = $1 AND current_activations = 1) AS used_keys,
              (SELECT count(*)::int FROM license_keys WHERE product_id = $1 AND current_activations > 1) AS shared_keys`,
      [product],
    );
    expect(totals).toEqual({ redemptions: BURST, used_keys: BURST, shared_keys: 0 });
    await expectNothingPartial(t.db);

    // The jobs went on too: every order e-mail goes out, as one message each.
    await orderMailsSent(t.db, product, BURST);
    expectOneMessageEach(
      smtp,
      requests.map((r) => r.body.email),
    );
  });
});
