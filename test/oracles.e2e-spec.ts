import { randomBytes } from 'crypto';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TestApp } from './helpers/app';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';

const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';
const ALREADY_ISSUED = 'A licence for this product has already been issued to this e-mail address.';

/**
 * No answer tells a stranger more than it should (docs/product.md "Code guessing", "Sign-in lockout"): "already
 * issued to this e-mail" counts like an unknown code, an unknown username locks like a real one, and the login
 * block groups IPv6 by /64. The server's clock is fixed and moved by the tests.
 */
describe('No oracles', () => {
  let t: TestApp;
  let now = new Date('2026-07-01T10:00:00Z').getTime();
  let nextAddress = 1;
  /** A fresh documentation address per caller, so the tests do not share counters. */
  const newIp = () => `203.0.113.${nextAddress++}`;

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
      const email = `buyer-${randomBytes(4).toString('hex')}@example.com`;
      const [bought, spare] = await addCodes(t.db, mac, [randomCode('BOUGHT'), randomCode('SPARE')]);
      await redeem(newIp(), bought, email).expect(201);
      return { email, spare };
    }

    it('blocks an address after REDEEM_GUESS_LIMIT "already issued" answers; the code stays redeemable by others', async () => {
      const { email, spare } = await buyerAndSpareCode();
      const ip = newIp();
      for (let i = 0; i < 3; i++) {
        const res = await redeem(ip, spare, email).expect(409);
        expect(res.body.message).toBe(ALREADY_ISSUED);
      }
      const blocked = await redeem(ip, spare, `someone-${randomBytes(4).toString('hex')}@example.com`).expect(429);
      expect(blocked.body).toEqual({ statusCode: 429, message: GUESS_MESSAGE, error: 'Too Many Requests' });

      const rows = await t.db.query(`SELECT reason FROM blocked_ips WHERE ip_address = $1`, [ip]);
      expect(rows).toHaveLength(1);
      expect(rows[0].reason).toMatch(/^voucher-guessing: 3 invalid voucher codes within 60 minutes/);
      // The probing never used the code up: its rightful owner, from another address, still redeems it.
      const [code] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [spare]);
      expect(code.is_redeemed).toBe(false);
      await redeem(newIp(), spare, `owner-${randomBytes(4).toString('hex')}@example.com`).expect(201);
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
      for (const code of codes) await redeem(ip, code, `fine-${randomBytes(4).toString('hex')}@example.com`).expect(201);
      await redeem(ip, randomCode('NOPE'), 'x@example.com').expect(404);
    });
  });
});
