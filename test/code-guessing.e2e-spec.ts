import { randomBytes } from 'crypto';
import Redis from 'ioredis';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { connectAdmin, nextUpdate } from './helpers/realtime';
import { randomHex } from './helpers/seed';

const REDIS_URL = 'redis://127.0.0.1:6379';
const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';
const RATE_MESSAGE = 'Too many redemption attempts. Please wait a minute and try again.';

/**
 * Two API instances of one service (one database, one Redis prefix), as behind a load balancer
 * (docs/product.md §18.2). Both read the time from one fixed clock that the tests move forward.
 */
describe('Code guessing and the redeem rate limit across API instances', () => {
  let a: TestApp;
  let b: TestApp;
  let now = new Date('2026-06-01T10:00:00Z').getTime();
  const prefix = `guess-${randomBytes(4).toString('hex')}`;
  let nextAddress = 1;
  /** A fresh documentation address per test, so the tests do not share counters. */
  const newIp = () => `198.51.100.${nextAddress++}`;
  const advance = (ms: number) => (now += ms);

  beforeAll(async () => {
    const env = {
      REDIS_URL,
      REDIS_PREFIX: prefix,
      TRUST_PROXY: 'loopback',
      REDEEM_RATE_LIMIT: '10',
      // Every request reads blocked_ips, so a block made by one instance is seen by the other at once
      // (by default within BLOCKED_IP_CACHE_MS).
      BLOCKED_IP_CACHE_MS: '0',
      GEO_BLOCKED_COUNTRIES: '',
    };
    a = await startTestApp(env);
    b = await startTestApp(env, { database: a.database });
    for (const t of [a, b]) jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(async () => {
    await b.close();
    await a.close();
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  const redeem = (t: TestApp, ip: string, voucherCode = `NOPE-${randomHex(3).toUpperCase()}`) =>
    t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode }));

  /** `count` unknown codes from `ips` (round robin), alternating instances, 7 s apart (under the rate limit). */
  async function guess(ips: string[], count: number): Promise<number[]> {
    const statuses: number[] = [];
    for (let i = 0; i < count; i++) {
      advance(7_000);
      statuses.push((await redeem(i % 2 ? b : a, ips[i % ips.length])).status);
    }
    return statuses;
  }

  it('counts the 10/min redeem limit across both instances', async () => {
    const ip = newIp();
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await redeem(i % 2 ? b : a, ip)).status);
    expect(statuses).toEqual(Array(10).fill(404));
    for (const t of [a, b]) {
      const res = await redeem(t, ip).expect(429);
      expect(res.body.message).toBe(RATE_MESSAGE);
    }
    await redeem(a, newIp()).expect(404);
    // A minute later the address may try again.
    advance(60_001);
    await redeem(b, ip).expect(404);
  });

  it('counts IPv6 addresses of one /64 together for the rate limit', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await redeem(i % 2 ? b : a, `2001:db8:77:1::${(i + 1).toString(16)}`)).status);
    }
    expect(statuses).toEqual([...Array(10).fill(404), 429]);
    await redeem(a, '2001:db8:77:2::1').expect(404);
    advance(60_001);
  });

  it('blocks an address on both instances after 20 unknown codes split across them, with audit and a real-time event', async () => {
    const ip = newIp();
    const socket = await connectAdmin(a);
    const event = nextUpdate(socket, 'ipBlocked');
    try {
      const statuses = await guess([ip], 21);
      expect(statuses).toEqual([...Array(20).fill(404), 429]);
      for (const t of [a, b]) {
        const res = await redeem(t, ip).expect(429);
        expect(res.body).toEqual({ statusCode: 429, message: GUESS_MESSAGE, error: 'Too Many Requests' });
        await t
          .http()
          .get(`/api/success-token/${randomBytes(32).toString('base64url')}`)
          .set('X-Forwarded-For', ip)
          .expect(429);
      }
      // A real code does not help either.
      const [code] = await addCodes(a.db, await productId(a.db, PRODUCTS.homeBusinessMac), [randomCode('GUESS')]);
      await redeem(b, ip, code).expect(429);

      const rows = await a.db.query(`SELECT reason, expires_at, is_active FROM blocked_ips WHERE ip_address = $1`, [
        ip,
      ]);
      expect(rows).toHaveLength(1);
      expect(rows[0].is_active).toBe(true);
      expect(rows[0].reason).toMatch(/^voucher-guessing: 20 invalid voucher codes within 60 minutes/);
      expect(new Date(rows[0].expires_at).getTime()).toBe(now - 7_000 + 1440 * 60_000);
      const audit = await a.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'ip.blocked' AND ip_address = $1`,
        [ip],
      );
      expect(audit).toHaveLength(1);
      expect(audit[0].details).toMatchObject({
        reason: 'voucher-guessing',
        failures: 20,
        windowMinutes: 60,
        blockMinutes: 1440,
      });
      // The 20th failure was answered by instance B; the admin is connected to A.
      expect((await event).message).toContain(`Address ${ip} blocked for 1440 minutes`);
      // Another address is not affected.
      await redeem(a, newIp()).expect(404);
    } finally {
      socket.disconnect();
    }
  });

  it('counts IPv6 addresses of one /64 together and blocks the /64', async () => {
    const ips = Array.from({ length: 5 }, (_, i) => `2001:db8:42:7:${i + 1}::${i + 10}`);
    const statuses = await guess(ips, 20);
    expect(statuses).toEqual(Array(20).fill(404));
    const [row] = await a.db.query(`SELECT ip_address FROM blocked_ips WHERE ip_address LIKE '2001:db8:42:7%'`);
    expect(row.ip_address).toBe('2001:db8:42:7::/64');
    for (const t of [a, b]) {
      const res = await redeem(t, '2001:db8:42:7:ffff::1').expect(429);
      expect(res.body.message).toBe(GUESS_MESSAGE);
    }
    await redeem(b, '2001:db8:42:8::1').expect(404);
  });

  it('lifts the block when it expires (fixed clock) and starts counting afresh', async () => {
    const ip = newIp();
    await guess([ip], 20);
    await redeem(a, ip).expect(429);
    advance(1440 * 60_000 - 60_000);
    await redeem(b, ip).expect(429);
    advance(60_000);
    // The failures of the old window are gone: one more unknown code is just a 404.
    await redeem(b, ip).expect(404);
    await redeem(a, ip).expect(404);
  });

  it('never stores a forged address longer than 45 characters, and keeps it under the limits', async () => {
    const forged = `203.0.113.1${'0'.repeat(40)}`;
    const [code] = await addCodes(a.db, await productId(a.db, PRODUCTS.homeBusinessMac), [randomCode('FORGED')]);
    await redeem(a, forged, code).expect(201);
    const [customer] = await a.db.query(
      `SELECT c.ip_address FROM customers c JOIN redemptions r ON r.customer_id = c.id
         JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(customer.ip_address).toBeNull();

    const login = (password: string) =>
      a.http().post('/api/admin/login').set('X-Forwarded-For', forged).send({ username: 'admin', password });
    await login('wrong-password!').expect(401);
    const ok = await login(TEST_ADMIN_PASSWORD).expect(200);
    expect(ok.body.accessToken ?? ok.body.token).toBeDefined();
    const sessions = await a.db.query(`SELECT ip_address FROM admin_sessions ORDER BY created_at DESC LIMIT 1`);
    expect(sessions[0].ip_address).toBeNull();
    const audit = await a.db.query(
      `SELECT ip_address FROM security_audit_log WHERE action LIKE 'login.%' ORDER BY created_at DESC LIMIT 2`,
    );
    expect(audit.map((r: { ip_address: string | null }) => r.ip_address)).toEqual([null, null]);

    // Forged values share one bucket: 20 more unknown codes from different forgeries hit the guess limit
    // without a blocked_ips row for them.
    const forgeries = Array.from({ length: 4 }, (_, i) => `${i}`.repeat(50));
    await guess(forgeries, 20);
    const lengths = await a.db.query(`SELECT max(length(ip_address)) AS longest FROM blocked_ips`);
    expect(Number(lengths[0].longest)).toBeLessThanOrEqual(45);
    const invalid = await a.db.query(`SELECT 1 FROM blocked_ips WHERE ip_address = 'invalid'`);
    expect(invalid).toHaveLength(0);
  });
});
