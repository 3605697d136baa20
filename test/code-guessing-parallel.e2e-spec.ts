import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { randomHex } from './helpers/seed';

const REDIS_URL = 'redis://127.0.0.1:6379';
const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';
const LIMIT = 10;

/**
 * Code guessing in parallel (docs/product.md §18.2): two API instances of one service (one database, one Redis
 * prefix) take unknown codes from one address group at the same time. The shared counter admits exactly
 * REDEEM_GUESS_LIMIT failed guesses; every other one is answered as a blocked address is.
 */
describe('Code guessing in parallel across two API instances', () => {
  let a: TestApp;
  let b: TestApp;
  const prefix = `guess-par-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    const env = {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      TRUST_PROXY: 'loopback',
      REDEEM_RATE_LIMIT: '0',
      REDEEM_GUESS_LIMIT: String(LIMIT),
      // Every request reads blocked_ips: the block one instance makes holds on the other at once (by default
      // within BLOCKED_IP_CACHE_MS, docs/product.md §18.2).
      BLOCKED_IP_CACHE_MS: '0',
      GEO_BLOCKED_COUNTRIES: '',
    };
    a = await startTestApp(env);
    b = await startTestApp(env, { database: a.database });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const redeem = (t: TestApp, ip: string, voucherCode = `NOPE-${randomHex(4).toUpperCase()}`) =>
    t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode }));

  it('admits exactly REDEEM_GUESS_LIMIT unknown codes fired at once over both instances, then blocks the group', async () => {
    // One IPv6 /64: the addresses differ, the group is one.
    const ips = Array.from({ length: 8 }, (_, i) => `2001:db8:5a:9:${i + 1}::${i + 2}`);
    const answers = await Promise.all(
      Array.from({ length: LIMIT * 4 }, (_, i) => redeem(i % 2 ? b : a, ips[i % ips.length])),
    );
    const statuses = answers.map((res) => res.status);
    expect(statuses.filter((s) => s !== 429)).toEqual(Array(LIMIT).fill(404));
    for (const res of answers.filter((r) => r.status === 429)) expect(res.body.message).toBe(GUESS_MESSAGE);

    const blocks = await a.db.query(
      `SELECT ip_address, reason FROM blocked_ips WHERE ip_address LIKE '2001:db8:5a:9%'`,
    );
    expect(blocks).toEqual([
      { ip_address: '2001:db8:5a:9::/64', reason: expect.stringMatching(`^voucher-guessing: ${LIMIT} invalid`) },
    ]);
    // A valid code from the group is refused too, on both instances, and stays unredeemed.
    const [code] = await addCodes(a.db, await productId(a.db, PRODUCTS.homeBusinessMac), [randomCode('PAR')]);
    for (const t of [a, b]) {
      const res = await redeem(t, '2001:db8:5a:9:ffff::1', code).expect(429);
      expect(res.body.message).toBe(GUESS_MESSAGE);
    }
    const [row] = await a.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [code]);
    expect(row.is_redeemed).toBe(false);
    // Another address group is not affected.
    await redeem(b, '2001:db8:5a:10::1').expect(404);
  });
});
