import { randomBytes, randomUUID } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import Redis from 'ioredis';
import { tmpdir } from 'os';
import { join } from 'path';
import { io, Socket } from 'socket.io-client';
import { DataSource } from 'typeorm';
import { DataCipher } from '../backend/src/config/data-cipher';
import { MIGRATIONS } from '../backend/src/database/migrations';
import { createTestDatabase, TestDatabase } from './helpers/database';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  randomCode,
  redeemBody,
  testCiphers,
} from './helpers/factories';
import { servedBy, startHaproxy, TestHaproxy } from './helpers/haproxy';
import { HttpAnswer, httpFrom, Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './helpers/processes';
import { freePort, startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { randomHex } from './helpers/seed';

/**
 * The scale-out layout of docker/docker-compose.yml, for real, on loopback: two API processes of the built app
 * (WORKERS_IN_API=false), two job workers, Debian's HAProxy with the shipped docker/haproxy.cfg in front, the
 * test PostgreSQL and Redis, and an in-test SMTP server. Every request below goes through the balancer, from
 * client addresses 127.x.y.z (all loopback on Linux), so the proxy writes a different X-Forwarded-For for each.
 */
const ADMIN_PASSWORD = 'Sc4le!Out#Admin2024';
const DATA_KEY = randomBytes(32).toString('base64');
const GERMAN_IP = '85.214.132.117';

/** Client addresses: every request of a burst comes from one of `count` addresses of the block 127.0.<block>.x. */
const clientAddress = (block: number, i: number, count = 100) => `127.0.${block}.${(i % count) + 1}`;

describe('scale-out behind HAProxy: 2 APIs, 2 workers, PostgreSQL, Redis', () => {
  jest.setTimeout(120_000);

  let database: TestDatabase;
  let db: DataSource;
  let smtp: TestSmtpServer;
  let dataDir: string;
  let prefix: string;
  type ApiName = 'api1' | 'api2';
  let apis: Record<ApiName, Spawned & { url: string }>;
  let env: Record<string, string>;
  const ports = {} as Record<ApiName, number>;
  const startApi = (name: ApiName) => ({
    ...startBuiltApp(name, { ...env, PORT: String(ports[name]) }),
    url: `http://127.0.0.1:${ports[name]}`,
  });
  let workers: Spawned[] = [];
  let proxy: TestHaproxy;
  let product: string;
  const sockets: Socket[] = [];
  const all = () => [...Object.values(apis ?? {}), ...workers, ...(proxy ? [proxy.process] : [])];

  beforeAll(async () => {
    database = await createTestDatabase('ovr_scale');
    smtp = await startSmtpServer();
    dataDir = mkdtempSync(join(tmpdir(), 'ovr-scale-'));
    prefix = `ovr_scale_${randomBytes(4).toString('hex')}`;
    env = {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://licences.example.test',
      DATABASE_URL: database.url,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: prefix,
      WORKERS_IN_API: 'false',
      // The proxy connects to the APIs from 127.0.0.1: that hop, and only that one, is trusted.
      TRUST_PROXY: '127.0.0.1',
      JWT_SECRET: randomBytes(48).toString('base64'),
      DATA_KEY,
      ADMIN_PASSWORD,
      SMTP_URL: smtp.url,
      DATA_DIR: dataDir,
      SERVE_FRONTEND: 'false',
      LOG_LEVEL: 'info',
      // Four processes share the machine's PostgreSQL with the other suites.
      DB_POOL_SIZE: '6',
      MAIL_BACKOFF_MS: '200',
      MAIL_SWEEP_INTERVAL_MS: '500',
      MAIL_SWEEP_AFTER_MS: '2000',
    };
    [ports.api1, ports.api2] = [await freePort(), await freePort()];
    // Both APIs start at the same moment on the empty database.
    apis = { api1: startApi('api1'), api2: startApi('api2') };
    workers = [1, 2].map((n) => startBuiltApp(`worker${n}`, { ...env, DB_POOL_SIZE: '4' }, { worker: true }));
    for (const api of Object.values(apis)) {
      await waitUntil(
        `${api.name} to be healthy`,
        async () => (await httpFrom('127.0.0.1', `${api.url}/api/health`)).status === 200,
        {
          timeoutMs: 60_000,
          processes: all(),
        },
      );
    }
    proxy = await startHaproxy(`127.0.0.1:${ports.api1}`, `127.0.0.1:${ports.api2}`);

    db = new DataSource({ type: 'postgres', url: database.url, extra: { max: 4 } });
    await db.initialize();
    testCiphers.set(db, new DataCipher(Buffer.from(DATA_KEY, 'base64')));
    product = await licenseManagedProduct(db, `Scale-out ${prefix}`);
  });

  afterAll(async () => {
    sockets.forEach((s) => s.disconnect());
    await stopAllSpawned();
    await db?.destroy();
    await smtp?.close();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    if (prefix) {
      const redis = new Redis('redis://127.0.0.1:6379');
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      await redis.quit();
    }
  });

  /** Which API processes logged the request with this id (the request log, `x-request-id`); waits for the log line. */
  async function apiThatServed(requestId: string): Promise<string[]> {
    const loggedBy = () =>
      Object.values(apis)
        .filter((api) => api.logLines().some((line) => line.req?.id === requestId))
        .map((api) => api.name);
    await waitUntil(`the log line of request ${requestId}`, () => loggedBy().length > 0, { timeoutMs: 5_000 });
    return loggedBy();
  }

  /** Starts a killed API again on its port, once the old process has gone; resolves when HAProxy uses it again. */
  async function restartApi(name: ApiName, old: Spawned): Promise<void> {
    await waitUntil(`${name} to be gone`, () => old.exited());
    apis[name] = startApi(name);
    const health = (base: string) => httpFrom('127.0.0.1', `${base}/api/health`);
    await waitUntil(`${name} to be healthy again`, async () => (await health(apis[name].url)).status === 200, {
      timeoutMs: 60_000,
      processes: [apis[name]],
    });
    const sentTo = async () => servedBy((await health(proxy.url)).headers);
    await waitUntil(`HAProxy to send to ${name} again`, async () => (await sentTo()) === name);
  }

  async function codesWithKeys(count: number, tag: string): Promise<string[]> {
    const codes = await addCodes(
      db,
      product,
      Array.from({ length: count }, () => randomCode(tag)),
    );
    for (let i = 0; i < count; i += 50) {
      await Promise.all(
        codes.slice(i, i + 50).map(() => addLicenseKey(db, product, `${tag}-${randomHex(8).toUpperCase()}`)),
      );
    }
    return codes;
  }

  interface Redeemed {
    code: string;
    email: string;
    requestId: string;
    answer: HttpAnswer;
  }

  function redeem(code: string, from: string): Promise<Redeemed> {
    const requestId = randomUUID();
    const body = redeemBody({ voucherCode: code });
    return httpFrom(from, `${proxy.url}/api/redeem-voucher`, { body, headers: { 'x-request-id': requestId } }).then(
      (answer) => ({
        code,
        email: body.email,
        requestId,
        answer,
      }),
    );
  }

  /** Every redemption of these codes has its e-mail sent; answers the SMTP messages per recipient. */
  async function mailsOf(codes: string[]): Promise<Map<string, number>> {
    const rowsOf = () =>
      db.query(
        `SELECT r.email_status, c.email FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
           JOIN customers c ON c.id = r.customer_id WHERE v.code = ANY($1)`,
        [codes],
      ) as Promise<Array<{ email_status: string; email: string }>>;
    await waitUntil('every e-mail to be sent', async () => (await rowsOf()).every((r) => r.email_status === 'sent'), {
      timeoutMs: 60_000,
      processes: workers,
    });
    const recipients = new Set((await rowsOf()).map((r) => r.email));
    await waitUntil('the SMTP server to have them all', () =>
      [...recipients].every((email) => smtp.messages.some((m) => m.to && JSON.stringify(m.to).includes(email))),
    );
    const perRecipient = new Map<string, number>([...recipients].map((email) => [email, 0]));
    for (const message of smtp.messages) {
      const to = (Array.isArray(message.to) ? message.to : [message.to]).flatMap(
        (a) => a?.value.map((v) => v.address) ?? [],
      );
      for (const address of to) {
        if (address && perRecipient.has(address)) perRecipient.set(address, perRecipient.get(address)! + 1);
      }
    }
    return perRecipient;
  }

  it('both APIs started together on the empty database and migrated it once', async () => {
    const rows: Array<{ name: string; count: string }> = await db.query(
      `SELECT name, count(*) FROM migrations GROUP BY name ORDER BY name`,
    );
    expect(rows).toHaveLength(MIGRATIONS.length);
    expect(rows.every((r) => Number(r.count) === 1)).toBe(true);
    const [{ admins }] = await db.query(`SELECT count(*)::int AS admins FROM admin_users WHERE username = 'admin'`);
    expect(admins).toBe(1);
  });

  it('400 concurrent redemptions spread over both APIs: 400 rows, each e-mail sent exactly once', async () => {
    const codes = await codesWithKeys(400, 'BURST');
    // From 100 client addresses (4 redemptions each, under the redeem rate limit of 10 a minute).
    const results = await Promise.all(codes.map((code, i) => redeem(code, clientAddress(1, i))));

    expect(results.filter((r) => r.answer.status !== 201).map((r) => [r.answer.status, r.answer.body])).toEqual([]);
    const [{ rows }] = await db.query(
      `SELECT count(*)::int AS rows FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = ANY($1)`,
      [codes],
    );
    expect(rows).toBe(400);

    const served = await Promise.all(results.map((r) => apiThatServed(r.requestId)));
    expect(served.filter((s) => s.length !== 1)).toEqual([]);
    const share = (name: string) => served.filter(([api]) => api === name).length;
    expect(share('api1') + share('api2')).toBe(400);
    // Spread over both (how evenly is round robin's business, and the load's).
    expect(share('api1')).toBeGreaterThan(0);
    expect(share('api2')).toBeGreaterThan(0);

    const mails = await mailsOf(codes);
    expect(mails.size).toBe(400);
    expect([...mails.values()].filter((n) => n !== 1)).toEqual([]);
  });

  it('an admin socket connected through the balancer gets the event of a change made through the other API', async () => {
    const login = await httpFrom('127.0.2.1', `${proxy.url}/api/admin/login`, {
      body: { username: 'admin', password: ADMIN_PASSWORD },
    });
    expect(login.status).toBe(200);
    const token: string = login.body.accessToken;

    // socket.io over long-polling only: several HTTP requests, which round robin would scatter. The engine's
    // cookie jar keeps HAProxy's SRVID cookie, as a browser does, so they all reach one API.
    const socket = io(proxy.url, {
      transports: ['polling'],
      withCredentials: true,
      reconnection: false,
      forceNew: true,
    });
    sockets.push(socket);
    const joined = new Promise<string>((resolve) => {
      socket.once('admin-joined', () => resolve('joined'));
      socket.once('join-error', () => resolve('refused'));
      socket.once('connect_error', (err) => resolve(`connect_error ${err.message}`));
    });
    socket.on('connect', () => socket.emit('join-admin', { token }));
    expect(await joined).toBe('joined');
    const jar = (
      socket.io.engine as unknown as { _cookieJar: { cookies: IterableIterator<[string, { value: string }]> } }
    )._cookieJar;
    const socketServer = new Map([...jar.cookies]).get('SRVID')?.value;
    expect(['api1', 'api2']).toContain(socketServer);
    const other = socketServer === 'api1' ? 'api2' : 'api1';

    const update = new Promise<{ type: string; message: string }>((resolve) =>
      socket.on('dataUpdate', (event) => event.type === 'productUpdate' && resolve(event)),
    );
    const requestId = randomUUID();
    const name = `Realtime ${randomCode('P')}`;
    // Straight to the other API: through the balancer, a health check slowed by the machine's load could mark it
    // down for a moment and the request would be redispatched to the socket's own API.
    const created = await httpFrom('127.0.0.1', `${apis[other].url}/api/products`, {
      body: { name },
      headers: { authorization: `Bearer ${token}`, 'x-request-id': requestId },
    });
    expect(created.status).toBe(201);
    expect(await apiThatServed(requestId)).toEqual([other]);
    expect(await update).toEqual({ type: 'productUpdate', message: `Product ${name} created` });
  });

  it('the client address is the one HAProxy writes: a forged X-Forwarded-For moves neither the rate limit nor geo-blocking', async () => {
    const statuses = async (from: string, n: number, forged: (i: number) => string) => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const res = await httpFrom(from, `${proxy.url}/api/redeem-voucher`, {
          body: redeemBody({ voucherCode: 'NO-SUCH-CODE' }),
          headers: { 'x-forwarded-for': forged(i) },
        });
        out.push(res.status);
      }
      return out;
    };
    // Rate limit (10 a minute): counted for the address the proxy saw, whatever the client claims to be.
    expect(await statuses('127.0.3.1', 11, (i) => `203.0.113.${i + 1}`)).toEqual([...Array(10).fill(404), 429]);
    // Another client, claiming to be a fresh address or even the limited one, has its own budget.
    expect(await statuses('127.0.3.2', 2, () => '127.0.3.1')).toEqual([404, 404]);

    // Geo-blocking: a German address forged by the client is not believed; the stored address is the proxy's.
    const [code] = await codesWithKeys(1, 'GEO');
    const res = await httpFrom('127.0.3.3', `${proxy.url}/api/redeem-voucher`, {
      body: redeemBody({ voucherCode: code }),
      headers: { 'x-forwarded-for': GERMAN_IP },
    });
    expect(res.status).toBe(201);
    const [customer] = await db.query(
      `SELECT c.ip_address, c.country FROM customers c JOIN redemptions r ON r.customer_id = c.id
         JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(customer).toEqual({ ip_address: '127.0.3.3', country: null });

    // What the proxy hop writes is what geo-blocking judges: the same header from the proxy's address (127.0.0.1)
    // is believed and refused with 451, while from any other address it is ignored.
    const [other] = await codesWithKeys(1, 'GEO');
    const fromProxyHop = await httpFrom('127.0.0.1', `${apis.api1.url}/api/redeem-voucher`, {
      body: redeemBody({ voucherCode: other }),
      headers: { 'x-forwarded-for': GERMAN_IP },
    });
    expect(fromProxyHop.status).toBe(451);
    const fromElsewhere = await httpFrom('127.0.3.4', `${apis.api1.url}/api/redeem-voucher`, {
      body: redeemBody({ voucherCode: other }),
      headers: { 'x-forwarded-for': GERMAN_IP },
    });
    expect(fromElsewhere.status).toBe(201);
  });

  it('kill -9 of one API mid-burst: every 201 is durable, every e-mail is sent once, the other API keeps answering', async () => {
    // The burst runs until 60 requests have been sent after api1's end was observed (how long the kernel takes
    // to reap it varies with the machine's load), with codes to spare; 40 more stay for the after-check.
    const AFTER_KILL = 60;
    const codes = await codesWithKeys(240, 'KILL');
    const burst = codes.slice(0, -40);
    const victim = apis.api1;
    let killed = false;
    try {
      const results: Array<Redeemed & { afterKill: boolean }> = [];
      let gone = false;
      let sentAfterKill = 0;
      victim.child.once('exit', () => (gone = true));
      let next = 0;
      // 16 clients redeem one code after another; after the first 40 answers api1 is killed with SIGKILL.
      await Promise.all(
        Array.from({ length: 16 }, async () => {
          while (sentAfterKill < AFTER_KILL && next < burst.length) {
            const i = next++;
            // Requests sent between the signal and the process's end may still reach it and die with it.
            const afterKill = gone;
            if (afterKill) sentAfterKill++;
            const result = await redeem(burst[i], clientAddress(4, i));
            results.push({ ...result, afterKill });
            if (results.length === 40 && !killed) {
              victim.child.kill('SIGKILL');
              killed = true;
            }
          }
        }),
      );
      expect(killed).toBe(true);
      await waitUntil('api1 to be gone', () => victim.exited());
      expect(results.filter((r) => r.afterKill).length).toBe(AFTER_KILL);

      // Only requests caught inside the dying process failed, with the proxy's 502/503; none after the kill.
      const failed = results.filter((r) => r.answer.status !== 201);
      expect(failed.filter((r) => ![502, 503].includes(r.answer.status)).map((r) => r.answer)).toEqual([]);
      expect(results.filter((r) => r.afterKill && r.answer.status !== 201).map((r) => r.answer.status)).toEqual([]);
      expect(results.filter((r) => r.answer.status === 201).length).toBeGreaterThan(90);

      // The balancer keeps answering from api2 alone.
      const after = await Promise.all(codes.slice(-40).map((code, i) => redeem(code, clientAddress(5, i))));
      expect(after.map((r) => r.answer.status)).toEqual(Array(40).fill(201));
      expect(await Promise.all(after.map((r) => apiThatServed(r.requestId)))).toEqual(Array(40).fill(['api2']));

      // Every 201 is in the database, and its success page answers through the proxy.
      const accepted = [...results, ...after].filter((r) => r.answer.status === 201);
      const stored: Array<{ code: string }> = await db.query(
        `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = ANY($1)`,
        [codes],
      );
      const storedCodes = new Set(stored.map((r) => r.code));
      expect(accepted.filter((r) => !storedCodes.has(r.code)).map((r) => r.code)).toEqual([]);
      for (const r of accepted.slice(0, 5)) {
        const view = await httpFrom('127.0.5.200', `${proxy.url}/api/success-token/${r.answer.body.successToken}`);
        expect(view.status).toBe(200);
      }

      // Every redemption that exists (also one whose answer was lost with api1) gets its e-mail exactly once.
      const mails = await mailsOf(codes);
      expect(mails.size).toBe(storedCodes.size);
      expect([...mails.values()].filter((n) => n !== 1)).toEqual([]);
      expect(servedBy((await httpFrom('127.0.0.1', `${proxy.url}/api/health`)).headers)).toBe('api2');
    } finally {
      // Any other test may run after this one (jest --randomize): api1 comes back and HAProxy sends to it again.
      if (killed) await restartApi('api1', victim);
    }
  }, 240_000);
});
