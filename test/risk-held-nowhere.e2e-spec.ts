import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { licenceCentreClient } from './helpers/licence-centre';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';

const OFF = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};
// Letters no uuid, hex id or timestamp contains: the key found in a text is the key.
const key = (p: string) =>
  `${p}-${randomCode('Q')
    .replace(/[^A-Z]/g, 'X')
    .slice(0, 16)}-HLDZ`;

/**
 * docs/product.md §25.2: a held redemption's key appears in no answer and no e-mail until staff approve it. Two
 * held customers (a pool product and a product with one product key, the Mac kind) redeem; every answer that can
 * carry their key (success page, licence centre and its data export, the staff lists, details, history, review
 * queue, redemption export), every e-mail the SMTP server received and every webhook delivery is read: no key. Once
 * approved, the same success page, licence centre and order e-mail carry it, so the check can fail.
 */
describe('Held for review: the key is nowhere until approved', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Record<string, string>;
  const centre = licenceCentreClient(
    () => t,
    () => smtp,
  );

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      PUBLIC_URL: 'https://licences.example.com',
      ...RECEIVERS_ON_LOOPBACK,
    });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** Every rule off but the disposable e-mail's, which holds: a @mailinator.com address is held for review. */
  const holdDisposable = () =>
    t
      .http()
      .put('/api/risk/rules')
      .set(admin)
      .send({ ...OFF, disposableEmail: { enabled: true, action: 'review' } })
      .expect(200);
  /** A new code of the product redeemed by a disposable address (held): its id, code, e-mail and answer. */
  const redeemHeld = async (product: string, prefix: string) => {
    const [code] = await addCodes(t.db, product, [randomCode(prefix)]);
    const email = `held.${randomCode('E').toLowerCase()}@mailinator.com`;
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', centre.newIp())
      .send(redeemBody({ voucherCode: code, email }))
      .expect(201);
    const [{ id }] = await t.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    return { id: id as string, code, email, res };
  };

  it('shows "Held for review" instead of the key everywhere, and the key once approved', async () => {
    const receiver = await startReceiver();
    try {
      await t
        .http()
        .post('/api/webhooks')
        .set(admin)
        .send({ url: receiver.url, events: ['redemption.created', 'redemption.held', 'redemption.approved'] })
        .expect(201);
      const pooled = await licenseManagedProduct(t.db, `Held pool ${randomCode('P')}`);
      const poolKey = key('POOL');
      await addLicenseKey(t.db, pooled, poolKey);
      const productKey = key('PKEY');
      const keyed = (
        await t
          .http()
          .post('/api/products')
          .set(admin)
          .send({
            name: `Held keyed ${randomCode('P')}`,
            downloadLink: 'https://dl.example.com/k.exe',
            isLicenseManaged: false,
            productKey,
            emailSubject: 'Your licence',
            emailTemplate: '<p>Your key: {{license_key}}</p>',
          })
          .expect(201)
      ).body.id as string;
      await holdDisposable();

      const answersOfRedeem: string[] = [];
      const cases: Array<{ id: string; code: string; email: string; key: string; product: string; token: string }> = [];
      for (const [product, k] of [
        [pooled, poolKey],
        [keyed, productKey],
      ]) {
        const { id, code, email, res } = await redeemHeld(product, 'HN');
        answersOfRedeem.push(res.text);
        cases.push({ id, code, email, key: k, product, token: res.body.successToken as string });
      }
      // The licence centre signs the customers in (its link e-mail is read from the SMTP server).
      const customers: Array<Record<string, string>> = [];
      for (const c of cases) customers.push(await centre.signIn(c.email));

      const answers = async () => {
        const texts: string[] = [];
        const get = async (path: string, headers: Record<string, string> = admin) => {
          const res = await t.http().get(path).set(headers);
          expect([path, res.status, res.status === 200 ? '' : res.text]).toEqual([path, 200, '']);
          texts.push(res.text);
          return res.body;
        };
        for (const [i, c] of cases.entries()) {
          await get(`/api/success-token/${c.token}`, {});
          await get('/api/customer/licences', customers[i]);
          await get('/api/customer/data', customers[i]);
          await get(`/api/redemptions?search=${encodeURIComponent(c.email)}&showExported=true`);
          await get(`/api/redemptions/${c.id}`);
          await get(`/api/redemptions/${c.id}/history`);
          await get(`/api/products/${c.product}/voucher-codes-detailed?limit=500`);
        }
        texts.push(...answersOfRedeem);
        await get('/api/reviews?status=held');
        texts.push(...smtp.messages.map((m) => `${m.subject}\n${m.text}\n${m.html}`));
        texts.push(...receiver.received.map((h) => h.body));
        return texts.join('\n');
      };

      await eventually(async () => receiver.received.length >= 4, 15_000, 'the created and held webhooks');
      const held = await answers();
      for (const c of cases) expect([c.code, held.includes(c.key)]).toEqual([c.code, false]);
      // Shown as held, not as a key: the staff list and the licence centre say so.
      for (const [i, c] of cases.entries()) {
        const list = (await t.http().get(`/api/redemptions/${c.id}`).set(admin).expect(200)).body;
        expect(list).toMatchObject({ heldForReview: true, assignedLicenseKey: null });
        const licences = (await t.http().get('/api/customer/licences').set(customers[i]).expect(200)).body;
        expect(licences).toEqual([
          expect.objectContaining({ heldForReview: true, isManualProcessing: true, licenseKey: null }),
        ]);
        const page = (await t.http().get(`/api/success-token/${c.token}`).expect(200)).body;
        expect(page).toMatchObject({ isManualProcessing: true, licenseKey: null });
      }

      for (const c of cases) await t.http().post(`/api/reviews/${c.id}/approve`).set(admin).send({}).expect(200);
      for (const [i, c] of cases.entries()) {
        await eventually(
          async () => smtp.messages.some((m) => JSON.stringify(m.to).includes(c.email) && m.text?.includes(c.key)),
          20_000,
          `the order e-mail of ${c.code}`,
        );
        expect((await t.http().get(`/api/success-token/${c.token}`).expect(200)).body.licenseKey).toBe(c.key);
        const licences = (await t.http().get('/api/customer/licences').set(customers[i]).expect(200)).body;
        expect(licences).toEqual([expect.objectContaining({ heldForReview: false, licenseKey: c.key })]);
      }
    } finally {
      await t.http().put('/api/risk/rules').set(admin).send(OFF);
      await receiver.close();
    }
  });

  it('lets no staff action deliver a held redemption around the review: assign, bulk assign and resend refuse it', async () => {
    const product = await licenseManagedProduct(t.db, `Held staff ${randomCode('P')}`);
    const poolKey = key('SPOOL');
    await addLicenseKey(t.db, product, poolKey);
    await holdDisposable();
    try {
      const { id, code, email } = await redeemHeld(product, 'HS');
      const manual = { licenseKey: key('MANUAL'), downloadLink: 'https://dl.example.com/m.exe' };
      const HELD = 'This redemption is held for review: approve it in the Review tab to deliver its licence.';

      const assign = await t.http().post(`/api/redemptions/${id}/assign-license`).set(admin).send(manual);
      expect([assign.status, assign.body.message]).toEqual([409, HELD]);
      const bulk = await t
        .http()
        .post('/api/redemptions/bulk-assign-license')
        .set(admin)
        .send({ ...manual, redemptionIds: [id] })
        .expect(200);
      expect(bulk.body.successCount).toBe(0);
      const resend = await t.http().post(`/api/redemptions/${id}/resend-email`).set(admin);
      expect([resend.status, resend.body.message]).toEqual([409, HELD]);
      const assignments = async () =>
        (await t.db.query(`SELECT count(*)::int AS n FROM license_assignments WHERE redemption_id = $1`, [id]))[0]
          .n as number;
      // The customer's own resend answers as always and sends nothing; it uses none of their 3 a day.
      await t.http().post('/api/resend-order-email').send({ voucherCode: code, email }).expect(202);
      expect(await assignments()).toBe(0);
      expect(smtp.messages.filter((m) => JSON.stringify(m.to).includes(email))).toEqual([]);

      // Approve delivers it: the pool's key, one assignment, the order e-mail with it.
      await t.http().post(`/api/reviews/${id}/approve`).set(admin).send({}).expect(200);
      await eventually(
        async () => smtp.messages.some((m) => JSON.stringify(m.to).includes(email) && m.text?.includes(poolKey)),
        20_000,
        'the order e-mail',
      );
      expect(await assignments()).toBe(1);
      await t.http().post(`/api/redemptions/${id}/resend-email`).set(admin).expect(200);
      for (let i = 0; i < 3; i++) {
        await t.http().post('/api/resend-order-email').send({ voucherCode: code, email }).expect(202);
      }
      const resends = await t.db.query(
        `SELECT success FROM security_audit_log WHERE action = 'redemption.customer-resend' AND resource_id = $1`,
        [id],
      );
      expect(resends.map((r: { success: boolean }) => r.success)).toEqual([true, true, true]);
    } finally {
      await t.http().put('/api/risk/rules').set(admin).send(OFF);
    }
  });
});
