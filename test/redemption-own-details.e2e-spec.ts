import { GeoService } from '../backend/src/modules/geo/geo.service';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, randomCode, redeemBody } from './helpers/factories';
import { csvRows, HEADER } from './helpers/exports';
import { emailStatus, eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { randomHex } from './helpers/seed';

/**
 * Issue 24, finding "a redemption rewrites the customer" (docs/product.md §11.6): the name, phone, IP and
 * country given with a redemption stay that redemption's. A later redemption with the same e-mail (another product)
 * changes nothing an earlier one shows: list, search, details, voucher list, export, history and its order e-mail.
 */
describe('each redemption keeps the details given with it', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: { Authorization: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url, TRUST_PROXY: 'loopback', GEO_BLOCKED_COUNTRIES: '' });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });

  /** A product of its own (not licence-managed: its e-mail goes at once) whose e-mail greets the customer by name. */
  async function product(name: string): Promise<string> {
    const [row] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, download_link, email_subject, email_template)
       VALUES ($1, false, 'https://dl.example.com/x', 'Your order', '<p>Hello {{customer_name}}, code {{voucher_code}}</p>')
       RETURNING id`,
      [`${name} ${randomCode('P')} (Mac)`],
    );
    return row.id;
  }
  const messagesTo = (email: string) => smtp.messages.filter((m) => JSON.stringify(m.to).includes(email));
  const redemptionOf = async (code: string): Promise<string> =>
    (
      await t.db.query(
        `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      )
    )[0].id;

  it('redeeming product B as "Bob" with the e-mail that redeemed product A as "Ann" leaves A showing Ann everywhere', async () => {
    const [a, b] = [await product('Details A'), await product('Details B')];
    const [codeA] = await addCodes(t.db, a, [randomCode('ANN')]);
    const [codeB] = await addCodes(t.db, b, [randomCode('BOB')]);
    const email = `shared.${randomHex(4)}@example.com`;
    const [ipA, ipB] = ['8.8.8.8', '81.2.69.142'];
    const geo = t.app.get(GeoService);
    expect(geo.country(ipA)).not.toBe(geo.country(ipB));

    await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', ipA)
      .send(redeemBody({ voucherCode: codeA, email, firstName: 'Ann', lastName: 'Lee', phone: '+1 302 555 0100' }))
      .expect(201);
    const idA = await redemptionOf(codeA);
    await eventually(async () => (await emailStatus(t, idA)) === 'sent', 20_000, "A's order e-mail");
    await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', ipB)
      .send(
        redeemBody({
          voucherCode: codeB,
          email: ` ${email.toUpperCase()} `,
          firstName: 'Bob',
          lastName: 'Stone',
          phone: '+44 20 7946 0958',
        }),
      )
      .expect(201);
    const idB = await redemptionOf(codeB);
    await eventually(async () => (await emailStatus(t, idB)) === 'sent', 20_000, "B's order e-mail");

    // One customer row for the e-mail; each redemption keeps what was given with it.
    const stored = await t.db.query(
      `SELECT r.id, r.customer_id, r.first_name, r.last_name, r.phone, r.ip_address, r.country
         FROM redemptions r WHERE r.id = ANY($1::uuid[])`,
      [[idA, idB]],
    );
    const byId = Object.fromEntries(stored.map((r: { id: string }) => [r.id, r]));
    expect(byId[idA]).toMatchObject({
      first_name: 'Ann',
      last_name: 'Lee',
      phone: '+1 302 555 0100',
      ip_address: ipA,
      country: geo.country(ipA),
    });
    expect(byId[idB]).toMatchObject({
      first_name: 'Bob',
      last_name: 'Stone',
      phone: '+44 20 7946 0958',
      ip_address: ipB,
      country: geo.country(ipB),
    });
    expect(byId[idA].customer_id).toBe(byId[idB].customer_id);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM customers WHERE email = $1`, [email]))[0].n).toBe(1);

    // The admin list, searched by the shared e-mail and by each name.
    const list = async (search: string) =>
      (await t.http().get('/api/redemptions').query({ search, limit: 50 }).set(admin).expect(200)).body
        .redemptions as Array<{
        id: string;
        customer: { firstName: string; lastName: string; email: string; phone: string | null; country: string | null };
      }>;
    const listed = Object.fromEntries((await list(email)).map((r) => [r.id, r.customer]));
    expect(listed[idA]).toMatchObject({
      firstName: 'Ann',
      lastName: 'Lee',
      email,
      phone: '+1 302 555 0100',
      country: geo.country(ipA),
    });
    expect(listed[idB]).toMatchObject({
      firstName: 'Bob',
      lastName: 'Stone',
      email,
      phone: '+44 20 7946 0958',
      country: geo.country(ipB),
    });
    expect((await list('Ann Lee')).map((r) => r.id)).toContain(idA);
    expect((await list('Ann Lee')).map((r) => r.id)).not.toContain(idB);
    expect((await list('Bob Stone')).map((r) => r.id)).toEqual([idB]);

    // The details.
    const details = (await t.http().get(`/api/redemptions/${idA}`).set(admin).expect(200)).body;
    expect(details.customer).toMatchObject({ firstName: 'Ann', lastName: 'Lee', email, phone: '+1 302 555 0100' });

    // The voucher list of product A.
    const codes = (
      await t.http().get(`/api/products/${a}/voucher-codes-detailed`).query({ status: 'all' }).set(admin).expect(200)
    ).body;
    const codeRow = JSON.stringify(codes);
    expect(codeRow).toContain('"firstName":"Ann"');
    expect(codeRow).not.toContain('Bob');

    // Its order e-mail, sent again after B: still Ann's.
    expect(messagesTo(email).map((m) => m.html)).toEqual([
      expect.stringContaining(`Hello Ann Lee, code ${codeA}`),
      expect.stringContaining(`Hello Bob Stone, code ${codeB}`),
    ]);
    await t.http().post(`/api/redemptions/${idA}/resend-email`).set(admin).expect(200);
    await eventually(async () => messagesTo(email).length === 3, 20_000, "A's order e-mail again");
    expect(messagesTo(email)[2].html).toContain(`Hello Ann Lee, code ${codeA}`);

    // The export (as filtered on screen: the shared e-mail), last because it marks the rows exported.
    const file = await t
      .http()
      .get('/api/export/redeemed-vouchers')
      .query({ format: 'csv', search: email })
      .set(admin)
      .expect(200);
    const [header, ...rows] = csvRows(file.text);
    expect(header).toEqual(HEADER);
    const exported = Object.fromEntries(rows.map((r) => [r[0], r.slice(1, 6)]));
    expect(exported[codeA]).toEqual(['Ann', 'Lee', email, "'+1 302 555 0100", geo.country(ipA)]);
    expect(exported[codeB]).toEqual(['Bob', 'Stone', email, "'+44 20 7946 0958", geo.country(ipB)]);
  });
});
