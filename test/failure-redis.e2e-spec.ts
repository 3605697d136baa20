import { randomBytes } from 'crypto';
import { Clock } from '../backend/src/common/clock';
import { AttemptStore } from '../backend/src/modules/attempts/attempt-store';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { expectNothingPartial } from './helpers/failures';
import { emailStatus, eventually } from './helpers/redemptions';
import { startRedisServer, TestRedisServer } from './helpers/redis';
import { randomHex } from './helpers/seed';

const RATE_MESSAGE = 'Too many redemption attempts. Please wait a minute and try again.';
const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';

/**
 * Issue 27: Redis, which holds the shared rate-limit and code-guessing counters (AttemptStore) and the job queues, dies
 * under two API instances of one service and comes back empty. Redemptions keep working, each instance keeps
 * counting on its own meanwhile (docs/architecture.md "Code guessing and the rate limit"), and once Redis is back the
 * counters are shared again and the e-mail queued while it was down goes out. The Redis is a private redis-server on a
 * free port, killed with SIGKILL.
 */
describe('failure paths: Redis down under the rate-limit and guessing counters', () => {
  jest.setTimeout(120_000);
  let redis: TestRedisServer;
  let a: TestApp;
  let b: TestApp;
  let product: string;
  let now = new Date('2026-06-01T10:00:00Z').getTime();
  let nextAddress = 1;
  const newIp = () => `198.51.100.${nextAddress++}`;

  beforeAll(async () => {
    redis = await startRedisServer();
    const env = {
      REDIS_URL: redis.url,
      REDIS_PREFIX: `fail-${randomBytes(4).toString('hex')}`,
      TRUST_PROXY: 'loopback',
      REDEEM_RATE_LIMIT: '4',
      REDEEM_GUESS_LIMIT: '6',
      BLOCKED_IP_CACHE_MS: '0',
      GEO_BLOCKED_COUNTRIES: '',
      // One service: both instances open the keys the other sealed.
      DATA_KEY: randomBytes(32).toString('base64'),
    };
    a = await startTestApp(env);
    b = await startTestApp(env, { database: a.database });
    for (const t of [a, b]) jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    product = await licenseManagedProduct(a.db, `Redis down ${randomCode('P')}`);
    for (let i = 0; i < 4; i++) await addLicenseKey(a.db, product, `RDS-${randomCode('K')}`);
  });
  afterAll(async () => {
    // A failed test may leave Redis stopped: the queues' connections need it to close.
    await redis?.start();
    await b?.close();
    await a?.close();
    await redis?.stop();
  });

  const redeem = (t: TestApp, ip: string, voucherCode = `NOPE-${randomHex(3).toUpperCase()}`) =>
    t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode }));
  const statuses = async (calls: Array<[TestApp, string]>) => {
    const out: number[] = [];
    for (const [t, ip] of calls) out.push((await redeem(t, ip)).status);
    return out;
  };
  /** The shared counters' connection of each instance (the AttemptStore's own Redis client) is usable again. */
  const countersConnected = (t: TestApp) =>
    (t.app.get(AttemptStore) as unknown as { redis: { status: string } }).redis.status === 'ready';

  it('counts across instances while Redis is up (the baseline)', async () => {
    const ip = newIp();
    expect(
      await statuses([
        [a, ip],
        [b, ip],
        [a, ip],
        [b, ip],
      ]),
    ).toEqual([404, 404, 404, 404]);
    const refused = await redeem(a, ip).expect(429);
    expect(refused.body.message).toBe(RATE_MESSAGE);
  });

  it('while Redis is down: redemptions work, each instance limits on its own, a guesser is still blocked', async () => {
    await redis.stop();
    now += 120_000;

    // A customer redeems: stored, page and key, whatever the queue's state.
    const [code] = await addCodes(a.db, product, [randomCode('RDS')]);
    const res = await a
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', newIp())
      .send(redeemBody({ voucherCode: code }));
    expect(res.status).toBe(201);
    const page = await b.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
    expect(page.body.licenseKey).toMatch(/^RDS-/);
    const [{ id }] = await a.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );

    // The rate limit still applies, per process: four on instance a, the fifth refused there; instance b, which
    // counts on its own now, still takes four from the same address (shared, it would refuse them).
    const ip = newIp();
    now += 120_000;
    expect(
      await statuses([
        [a, ip],
        [a, ip],
        [a, ip],
        [a, ip],
      ]),
    ).toEqual([404, 404, 404, 404]);
    expect((await redeem(a, ip).expect(429)).body.message).toBe(RATE_MESSAGE);
    expect(
      await statuses([
        [b, ip],
        [b, ip],
        [b, ip],
        [b, ip],
      ]),
    ).toEqual([404, 404, 404, 404]);
    expect((await redeem(b, ip).expect(429)).body.message).toBe(RATE_MESSAGE);

    // Guessing is counted per process too: three unknown codes on each instance stay under the limit of six ...
    const guesser = newIp();
    now += 120_000;
    expect(
      await statuses([
        [a, guesser],
        [b, guesser],
        [a, guesser],
        [b, guesser],
        [a, guesser],
        [b, guesser],
      ]),
    ).toEqual(Array(6).fill(404));
    // ... and three more on one instance (a minute later, past the rate limit's window) reach its own count's limit:
    // the address is blocked for both (the block is a blocked_ips row in PostgreSQL).
    now += 61_000;
    expect(
      await statuses([
        [a, guesser],
        [a, guesser],
        [a, guesser],
      ]),
    ).toEqual([404, 404, 404]);
    expect((await redeem(b, guesser).expect(429)).body.message).toBe(GUESS_MESSAGE);
    expect((await redeem(a, guesser).expect(429)).body.message).toBe(GUESS_MESSAGE);

    // Redis comes back empty; the counters connect again and are shared: two + two, then the fifth refused.
    await redis.start();
    await eventually(async () => countersConnected(a) && countersConnected(b), 30_000, 'the counters to reconnect');
    now += 120_000;
    const after = newIp();
    expect(
      await statuses([
        [a, after],
        [b, after],
        [a, after],
        [b, after],
      ]),
    ).toEqual([404, 404, 404, 404]);
    expect((await redeem(a, after).expect(429)).body.message).toBe(RATE_MESSAGE);
    expect((await redeem(b, after).expect(429)).body.message).toBe(RATE_MESSAGE);

    // The e-mail of the redemption made while Redis was down goes out (the sweep finds the pending row).
    await eventually(
      async () => (await emailStatus(a, id)) === 'sent',
      60_000,
      'the order e-mail after Redis returned',
    );
    await expectNothingPartial(a.db);
  });
});
