import { Clock } from '../backend/src/common/clock';
import { RetentionJob } from '../backend/src/modules/retention/retention.job';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { createAdminUser } from './helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { randomHex } from './helpers/seed';

const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';
const ALREADY_ISSUED = 'A licence for this product has already been issued to this e-mail address.';
const INVALID_LOGIN = { statusCode: 401, message: 'Invalid username or password', error: 'Unauthorized' };
const LOCKED = { statusCode: 423, message: 'Account temporarily locked. Try again later.', error: 'Locked' };
const WRONG = 'wrong-password!';

/**
 * No answer tells a stranger more than it should (docs/product.md §18.2, §13.2): "already
 * issued to this e-mail" counts like an unknown code, an unknown username locks like a real one, and the login
 * block groups IPv6 by /64. The server's clock is fixed and moved by the tests.
 */
describe('No oracles', () => {
  let t: TestApp;
  let now = Date.now();
  const advance = (ms: number) => (now += ms);
  let nextAddress = 1;
  /** A fresh documentation address per caller, so the tests do not share counters. */
  const newIp = () => {
    const n = nextAddress++;
    if (n > 2 * 254) throw new Error('out of documentation addresses');
    return n <= 254 ? `203.0.113.${n}` : `198.51.100.${n - 254}`;
  };

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'loopback', REDEEM_GUESS_LIMIT: '3', GEO_BLOCKED_COUNTRIES: '' });
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
  });
  afterAll(() => t.close());

  describe('"already issued" counts as a failed guess', () => {
    let mac: string;
    beforeAll(async () => {
      mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    });

    const redeem = (ip: string, voucherCode: string, email: string) =>
      t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode, email }));

    /** A customer who already holds a licence of the product, and an unredeemed code of the same product. */
    async function buyerAndSpareCode(): Promise<{ email: string; spare: string }> {
      const email = `buyer-${randomHex(4)}@example.com`;
      const [bought, spare] = await addCodes(t.db, mac, [randomCode('BOUGHT'), randomCode('SPARE')]);
      await redeem(newIp(), bought, email).expect(201);
      return { email, spare };
    }

    it('blocks an address after REDEEM_GUESS_LIMIT "already issued" answers; the code stays redeemable', async () => {
      const { email, spare } = await buyerAndSpareCode();
      const ip = newIp();
      for (let i = 0; i < 3; i++) {
        const res = await redeem(ip, spare, email).expect(409);
        expect(res.body.message).toBe(ALREADY_ISSUED);
      }
      const blocked = await redeem(ip, spare, `someone-${randomHex(4)}@example.com`).expect(429);
      expect(blocked.body).toEqual({ statusCode: 429, message: GUESS_MESSAGE, error: 'Too Many Requests' });

      const rows = await t.db.query(`SELECT reason FROM blocked_ips WHERE ip_address = $1`, [ip]);
      expect(rows).toHaveLength(1);
      expect(rows[0].reason).toMatch(/^voucher-guessing: 3 invalid voucher codes within 60 minutes/);
      // The probing never used the code up: its rightful owner, from another address, still redeems it.
      const [code] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [spare]);
      expect(code.is_redeemed).toBe(false);
      await redeem(newIp(), spare, `owner-${randomHex(4)}@example.com`).expect(201);
    });

    it('counts unknown codes and "already issued" answers together', async () => {
      const { email, spare } = await buyerAndSpareCode();
      const ip = newIp();
      await redeem(ip, randomCode('NOPE'), email).expect(404);
      await redeem(ip, spare, email).expect(409);
      await redeem(ip, randomCode('NOPE'), email).expect(404);
      const res = await redeem(ip, spare, email).expect(429);
      expect(res.body.message).toBe(GUESS_MESSAGE);
    });

    it('does not count a granted redemption', async () => {
      const ip = newIp();
      const codes = await addCodes(t.db, mac, [randomCode('OK'), randomCode('OK'), randomCode('OK'), randomCode('OK')]);
      for (const code of codes) await redeem(ip, code, `ok-${randomHex(4)}@example.com`).expect(201);
      await redeem(ip, randomCode('NOPE'), 'x@example.com').expect(404);
    });
  });
  const login = (username: string, password: string, ip = newIp()) =>
    t.http().post('/api/admin/login').set('X-Forwarded-For', ip).send({ username, password });
  const unknownName = () => `nobody_${randomHex(5)}`;

  describe('an unknown username locks out exactly like a known one', () => {
    const accounts = async () => Number((await t.db.query(`SELECT count(*) AS n FROM admin_users`))[0].n);

    /** The statuses of `count` wrong logins of `username`, one after another. */
    async function wrongLogins(username: string, count: number): Promise<number[]> {
      const statuses: number[] = [];
      for (let i = 0; i < count; i++) statuses.push((await login(username, WRONG)).status);
      return statuses;
    }

    it('answers 401 five times, then 423 for 15 minutes, for a name with no account and for an account', async () => {
      const before = await accounts();
      const nobody = unknownName();
      const user = await createAdminUser(t, { role: 'operator' });
      for (const name of [nobody, user.username]) {
        for (let i = 0; i < 5; i++) expect((await login(name, WRONG)).body).toEqual(INVALID_LOGIN);
        expect((await login(name, WRONG)).body).toEqual(LOCKED);
      }
      // Even the right password is refused while locked.
      await login(user.username, user.password).expect(423);
      advance(15 * 60_000 - 1_000);
      await login(nobody, WRONG).expect(423);
      await login(user.username, user.password).expect(423);
      // The lock ends after 15 minutes, and a fresh count starts.
      advance(1_000);
      expect(await wrongLogins(nobody, 6)).toEqual([401, 401, 401, 401, 401, 423]);
      await login(user.username, user.password).expect(200);
      // No account was created for the unknown name; its failures are a counter, audited without a user.
      expect(await accounts()).toBe(before + 1);
      expect(await t.db.query(`SELECT 1 FROM admin_users WHERE username = $1`, [nobody])).toHaveLength(0);
      const audit = await t.db.query(
        `SELECT action, admin_user_id FROM security_audit_log WHERE details->>'username' = $1 ORDER BY created_at`,
        [nobody],
      );
      expect(audit.map((r: { action: string }) => r.action)).toEqual([
        ...Array(5).fill('login.failure'),
        ...Array(2).fill('login.locked'),
        ...Array(5).fill('login.failure'),
        'login.locked',
      ]);
      expect(audit.every((r: { admin_user_id: string | null }) => r.admin_user_id === null)).toBe(true);
    });

    it('lets no more than 5 parallel guesses on an unknown name through', async () => {
      const nobody = unknownName();
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => login(nobody, `${WRONG}${i}`)));
      expect(answers.map((res) => res.status).sort()).toEqual([401, 401, 401, 401, 401, 423, 423, 423]);
    });

    it('forgets failures after a day without one, for an unknown name as for an account', async () => {
      const nobody = unknownName();
      const user = await createAdminUser(t);
      for (const name of [nobody, user.username]) expect(await wrongLogins(name, 4)).toEqual(Array(4).fill(401));
      advance(24 * 3600_000 + 1_000);
      for (const name of [nobody, user.username]) expect(await wrongLogins(name, 2)).toEqual([401, 401]);
      // Three more make five in a row: both lock.
      for (const name of [nobody, user.username]) expect(await wrongLogins(name, 4)).toEqual([401, 401, 401, 423]);
    });

    it('never locks a real account through failures of another spelling of its name', async () => {
      const user = await createAdminUser(t, { username: `Casey_${randomHex(3)}` });
      expect(await wrongLogins(user.username.toLowerCase(), 6)).toEqual([401, 401, 401, 401, 401, 423]);
      expect(await wrongLogins(user.username.toUpperCase(), 6)).toEqual([401, 401, 401, 401, 401, 423]);
      await login(user.username, user.password).expect(200);
      await login('admin', TEST_ADMIN_PASSWORD).expect(200);
    });

    it('retention deletes the counters of unknown names a day after their last attempt', async () => {
      const [stale, fresh] = [unknownName(), unknownName()];
      await t.db.query(
        `INSERT INTO unknown_login_names (username, failed_login_attempts, updated_at)
         VALUES ($1, 3, now() - interval '25 hours'), ($2, 3, now() - interval '2 hours')`,
        [stale, fresh],
      );
      const result = await t.app.get(RetentionJob).run();
      expect(result.adminAttempts).toBeGreaterThanOrEqual(1);
      const left = await t.db.query(`SELECT username FROM unknown_login_names WHERE username = ANY($1)`, [
        [stale, fresh],
      ]);
      expect(left).toEqual([{ username: fresh }]);
    });
  });
  describe('the login IP block counts an IPv6 /64 as one address', () => {
    it('blocks the /64 after 20 failed logins from several of its addresses', async () => {
      const ips = Array.from({ length: 5 }, (_, i) => `2001:db8:4c:9:${i + 1}::${i + 7}`);
      for (let i = 0; i < 20; i++) await login(unknownName(), WRONG, ips[i % ips.length]).expect(401);
      const rows = await t.db.query(`SELECT ip_address, reason FROM blocked_ips WHERE ip_address LIKE '2001:db8:4c:%'`);
      expect(rows).toEqual([{ ip_address: '2001:db8:4c:9::/64', reason: '20 failed logins within 10 minutes' }]);
      const [audit] = await t.db.query(
        `SELECT resource_id, ip_address FROM security_audit_log WHERE action = 'ip.blocked' AND resource_id = $1`,
        ['2001:db8:4c:9::/64'],
      );
      expect(audit).toEqual({ resource_id: '2001:db8:4c:9::/64', ip_address: ips[4] });
      // Every address of the /64 is refused, the right password included; the next /64 is not.
      await t.http().get('/api/health').set('X-Forwarded-For', '2001:db8:4c:9:ffff::1').expect(403);
      await login('admin', TEST_ADMIN_PASSWORD, '2001:db8:4c:9::abcd').expect(403);
      await login('admin', TEST_ADMIN_PASSWORD, '2001:db8:4c:a::1').expect(200);
    });

    it('keeps the group only on the rows it counts: a failed sign-in keeps it, a successful one does not', async () => {
      const ip = '2001:db8:4c:b::17';
      await login(unknownName(), WRONG, ip).expect(401);
      await login('admin', TEST_ADMIN_PASSWORD, ip).expect(200);
      const rows = await t.db.query(
        `SELECT action, success, ip_group FROM security_audit_log WHERE ip_address = $1 ORDER BY created_at`,
        [ip],
      );
      expect(rows).toEqual([
        { action: 'login.failure', success: false, ip_group: '2001:db8:4c:b::/64' },
        { action: 'login.success', success: true, ip_group: null },
      ]);
    });

    it('still counts an IPv4 address alone', async () => {
      const [a, b] = [newIp(), newIp()];
      for (let i = 0; i < 19; i++) await login(unknownName(), WRONG, a).expect(401);
      await login(unknownName(), WRONG, b).expect(401);
      expect(await t.db.query(`SELECT 1 FROM blocked_ips WHERE ip_address = ANY($1)`, [[a, b]])).toHaveLength(0);
      await login(unknownName(), WRONG, a).expect(401);
      const blocked = await t.db.query(`SELECT ip_address FROM blocked_ips WHERE ip_address = ANY($1)`, [[a, b]]);
      expect(blocked).toEqual([{ ip_address: a }]);
      await login('admin', TEST_ADMIN_PASSWORD, b).expect(200);
    });
  });
});
