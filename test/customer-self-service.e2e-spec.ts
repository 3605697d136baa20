import { randomBytes } from 'crypto';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TestApp } from './helpers/app';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  productId,
  PRODUCTS,
  randomCode,
  redeemBody,
} from './helpers/factories';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

const RESEND_ANSWER = {
  message: 'If this voucher was redeemed with this e-mail address, the order e-mail is on its way again.',
};
const USED = 'This voucher code has already been redeemed.';
const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';

/**
 * docs/product.md §19.1 idempotent redeem and self-service resend, through the real API on PostgreSQL with a real SMTP
 * server: what the customer is answered, what is written, and which e-mails actually leave.
 */
describe('customer self-service: idempotent redeem and "Didn\'t get the e-mail?"', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let product: string;
  let nextAddress = 1;
  /** A documentation address per test, so the code-guessing counters of the tests stay apart. */
  const newIp = () => `203.0.113.${nextAddress++}`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      REDEEM_GUESS_LIMIT: '5',
      BLOCKED_IP_CACHE_MS: '0',
    });
    product = await licenseManagedProduct(t.db, `Self Service ${randomCode('P')}`);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const redeem = (body: ReturnType<typeof redeemBody>, ip = '198.51.100.200', idempotencyKey?: string) => {
    const req = t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip);
    // The redeem page's per-form key (docs/product.md §19.1); without it a repeat is a 409.
    if (idempotencyKey) req.set('Idempotency-Key', idempotencyKey);
    return req.send(body);
  };
  const pageKey = () => randomBytes(16).toString('hex');
  const resend = (voucherCode: string, email: string, ip = '198.51.100.201') =>
    t.http().post('/api/resend-order-email').set('X-Forwarded-For', ip).send({ voucherCode, email });
  const messagesTo = (email: string) => smtp.messages.filter((m) => m.to && JSON.stringify(m.to).includes(email));
  const redemptionOf = async (code: string) =>
    (
      await t.db.query(
        `SELECT r.id, r.email_status, r.email_attempts FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      )
    )[0];

  /** Waits until the redemption's e-mail was sent and `count` messages reached its customer. */
  async function deliveredTo(redemptionId: string, email: string, count: number) {
    await eventually(
      async () => (await emailStatus(t, redemptionId)) === 'sent' && messagesTo(email).length >= count,
      20_000,
      `e-mail ${count} to ${email}`,
    );
    expect(messagesTo(email)).toHaveLength(count);
  }

  describe('idempotent redeem', () => {
    it('a double submit of one form (one key) makes one redemption, one key and one e-mail; both answers carry valid tokens for it', async () => {
      const [code] = await addCodes(t.db, product, [randomCode('DBL')]);
      await addLicenseKey(t.db, product, `DBL-${randomCode('K')}`);
      const body = redeemBody({ voucherCode: code });
      const key = pageKey();

      const answers = await Promise.all([redeem(body, undefined, key), redeem(body, undefined, key)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 201]);
      const tokens = answers.map((a) => a.body.successToken as string);
      for (const a of answers) {
        expect(a.body).toEqual({
          success: true,
          productName: expect.stringContaining('Self Service'),
          successToken: expect.any(String),
        });
      }
      expect(new Set(tokens).size).toBe(2);

      const pages = await Promise.all(tokens.map((token) => t.http().get(`/api/success-token/${token}`).expect(200)));
      expect(pages[0].body.licenseKey).toMatch(/^DBL-/);
      expect(pages[1].body).toEqual(pages[0].body);

      const rows = await t.db.query(
        `SELECT r.id, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS keys,
                (SELECT count(*)::int FROM success_tokens s WHERE s.redemption_id = r.id) AS tokens
           FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      );
      expect(rows).toEqual([{ id: expect.any(String), keys: 1, tokens: 2 }]);
      const [{ customers }] = await t.db.query(`SELECT count(*)::int AS customers FROM customers WHERE email = $1`, [
        body.email,
      ]);
      expect(customers).toBe(1);

      await deliveredTo(rows[0].id, body.email, 1);
      // The repeat queued nothing: the one e-mail was the only attempt and nothing is pending.
      const { email_status, email_attempts } = await redemptionOf(code);
      expect([email_status, email_attempts]).toEqual(['sent', 1]);
      const [{ logs }] = await t.db.query(`SELECT count(*)::int AS logs FROM email_logs WHERE redemption_id = $1`, [
        rows[0].id,
      ]);
      expect(logs).toBe(1);
    });

    it('the same code with another e-mail is still 409, and nothing is written', async () => {
      const first = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'OTHER');
      const other = redeemBody({
        voucherCode: first.code,
        email: `someone.else.${randomCode('x').toLowerCase()}@example.com`,
      });
      const res = await redeem(other).expect(409);
      expect(res.body).toEqual({ statusCode: 409, message: USED, error: 'Conflict' });
      const [{ tokens }] = await t.db.query(
        `SELECT count(*)::int AS tokens FROM success_tokens WHERE redemption_id = $1`,
        [first.id],
      );
      expect(tokens).toBe(1);
      expect(await t.db.query(`SELECT 1 FROM customers WHERE email = $1`, [other.email])).toEqual([]);
    });

    it('after the token lifetime (fixed clock) the same form is 409 again', async () => {
      const [code] = await addCodes(t.db, await productId(t.db, PRODUCTS.homeBusinessMac), [randomCode('TTL')]);
      const body = redeemBody({ voucherCode: code });
      const key = pageKey();
      await redeem(body, undefined, key).expect(201);
      const clock = jest.spyOn(t.app.get(Clock), 'now');
      // One minute before the end of SUCCESS_TOKEN_TTL_HOURS (72 h): still the same redemption.
      clock.mockReturnValue(new Date(Date.now() + (72 * 60 - 1) * 60_000));
      await redeem(body, undefined, key).expect(200);
      clock.mockReturnValue(new Date(Date.now() + (72 * 60 + 1) * 60_000));
      const res = await redeem(body, undefined, key).expect(409);
      expect(res.body.message).toBe(USED);
      const [{ tokens }] = await t.db.query(
        `SELECT count(*)::int AS tokens FROM success_tokens s JOIN redemptions r ON r.id = s.redemption_id
           JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      );
      expect(tokens).toBe(2);
    });
  });

  describe('POST /api/resend-order-email', () => {
    it('the right code and e-mail (any case, spaces) send exactly one more order e-mail', async () => {
      const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'RSND');
      await deliveredTo(r.id, r.email, 1);

      const res = await resend(` ${r.code.toLowerCase()} `, ` ${r.email.toUpperCase()} `).expect(202);
      expect(res.body).toEqual(RESEND_ANSWER);
      await deliveredTo(r.id, r.email, 2);
      const [first, second] = messagesTo(r.email);
      expect(second.subject).toBe(first.subject);
      expect(second.text).toContain(r.code);
    });

    it('a wrong e-mail, an unknown code and a manual redemption get the same 202 and no e-mail', async () => {
      const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'WRONG');
      await deliveredTo(r.id, r.email, 1);
      // A licence-managed product without a free key: manual processing, nothing to send yet.
      const noKeys = await licenseManagedProduct(t.db, `No Keys ${randomCode('P')}`);
      const manual = await redeemNew(t, noKeys, {}, 'MANUAL');
      expect(
        (await t.db.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [manual.id]))[0].awaiting_license,
      ).toBe(true);
      const before = smtp.messages.length;

      const answers = [
        await resend(r.code, 'not.the.customer@example.com'),
        await resend(randomCode('NOPE'), r.email),
        await resend(manual.code, manual.email),
      ];
      for (const a of answers) {
        expect(a.status).toBe(202);
        expect(a.body).toEqual(RESEND_ANSWER);
      }
      // Nothing was made due: the sent e-mail stays sent, the manual one waits for its key.
      expect(await redemptionOf(r.code)).toMatchObject({ email_status: 'sent', email_attempts: 1 });
      expect(await redemptionOf(manual.code)).toMatchObject({ email_status: 'pending', email_attempts: 0 });

      // A control resend that does send: it is the only message since.
      await resend(r.code, r.email).expect(202);
      await deliveredTo(r.id, r.email, 2);
      expect(smtp.messages.slice(before).map((m) => JSON.stringify(m.to))).toEqual([expect.stringContaining(r.email)]);
      expect(messagesTo(manual.email)).toHaveLength(0);
      expect(messagesTo('not.the.customer@example.com')).toHaveLength(0);
    });

    it('sends at most 3 per redemption in 24 hours: the 4th is answered the same and sends nothing', async () => {
      const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'LIMIT');
      await deliveredTo(r.id, r.email, 1);
      for (let n = 2; n <= 4; n++) {
        await resend(r.code, r.email).expect(202);
        await deliveredTo(r.id, r.email, n);
      }
      const fourth = await resend(r.code, r.email).expect(202);
      expect(fourth.body).toEqual(RESEND_ANSWER);
      expect(await redemptionOf(r.code)).toMatchObject({ email_status: 'sent', email_attempts: 4 });
      const audit = await t.db.query(
        `SELECT success, details FROM security_audit_log WHERE action = 'redemption.customer-resend' AND resource_id = $1 ORDER BY created_at`,
        [r.id],
      );
      expect(audit.map((a: { success: boolean }) => a.success)).toEqual([true, true, true, false]);
      expect(audit[3].details).toMatchObject({ reason: 'limit', limit: 3 });

      // A day later the customer may ask again.
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 24 * 60 * 60_000 + 60_000));
      await resend(r.code, r.email).expect(202);
      await deliveredTo(r.id, r.email, 5);
    });

    it('unknown codes count towards the code-guessing block like failed redeems', async () => {
      const ip = newIp();
      // REDEEM_GUESS_LIMIT=5 here: four unknown resends and one unknown redeem.
      for (let i = 0; i < 4; i++) await resend(randomCode('GUESS'), 'guess@example.com', ip).expect(202);
      await redeem(redeemBody({ voucherCode: randomCode('GUESS') }), ip).expect(404);
      const blocked = await resend(randomCode('GUESS'), 'guess@example.com', ip).expect(429);
      expect(blocked.body.message).toBe(GUESS_MESSAGE);
      const rows = await t.db.query(`SELECT reason FROM blocked_ips WHERE ip_address = $1 AND is_active`, [ip]);
      expect(rows).toHaveLength(1);
      expect(rows[0].reason).toMatch(/^voucher-guessing: 5 invalid voucher codes/);
      // Known codes with a wrong e-mail do not count.
      const other = newIp();
      const r = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'KNOWN');
      for (let i = 0; i < 6; i++) await resend(r.code, 'wrong@example.com', other).expect(202);
    });

    it('checks both fields with the redeem form rules (docs/product.md §6.1)', async () => {
      const bad = await t
        .http()
        .post('/api/resend-order-email')
        .send({ voucherCode: 'NO SPACES', email: 'ann@example.com' })
        .expect(400);
      expect(bad.body.message).toBe('Invalid voucher code format');
      const mail = await t
        .http()
        .post('/api/resend-order-email')
        .send({ voucherCode: 'ABC-123', email: 'not-an-address' })
        .expect(400);
      expect(mail.body.message).toBe('Invalid email address');
      const empty = await t.http().post('/api/resend-order-email').send({}).expect(400);
      expect(empty.body.message).toBe('Voucher code is required');
    });
  });
});
