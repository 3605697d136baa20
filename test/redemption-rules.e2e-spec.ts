import { startTestApp, TestApp } from './helpers/app';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';

/** docs/product.md §6.1 redemption form: every rule at its boundaries; a refused request writes nothing. */
describe('redemption form rules', () => {
  let t: TestApp;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp();
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

  async function counts() {
    const [row] = await t.db.query(`SELECT
      (SELECT count(*) FROM redemptions)::int AS redemptions,
      (SELECT count(*) FROM customers)::int AS customers,
      (SELECT count(*) FROM voucher_codes WHERE is_redeemed)::int AS redeemed`);
    return row;
  }

  const long = (n: number, ch = 'a') => ch.repeat(n);

  const refused: Array<[string, Record<string, unknown>, string]> = [
    ['missing voucher code', { voucherCode: undefined }, 'Voucher code is required'],
    ['empty voucher code', { voucherCode: '' }, 'Voucher code is required'],
    ['blank voucher code', { voucherCode: '   ' }, 'Voucher code is required'],
    ['voucher code of 101', { voucherCode: long(101, 'A') }, 'Voucher code too long'],
    ['voucher code with a space inside', { voucherCode: 'AB CD' }, 'Invalid voucher code format'],
    ['voucher code with a dot', { voucherCode: 'AB.CD' }, 'Invalid voucher code format'],
    ['empty first name', { firstName: '' }, 'First name is required'],
    ['blank first name', { firstName: '  ' }, 'First name is required'],
    ['first name of 51', { firstName: long(51) }, 'First name too long'],
    ['first name with digits', { firstName: 'Ann2' }, 'First name contains invalid characters'],
    ['first name with markup', { firstName: '<b>' }, 'First name contains invalid characters'],
    ['empty last name', { lastName: '' }, 'Last name is required'],
    ['last name of 51', { lastName: long(51) }, 'Last name too long'],
    ['last name with @', { lastName: 'Lee@' }, 'Last name contains invalid characters'],
    ['missing e-mail', { email: undefined }, 'Invalid email address'],
    ['malformed e-mail', { email: 'ann.example.com' }, 'Invalid email address'],
    ['e-mail of 255', { email: `${long(64)}@${long(63)}.${long(63)}.${long(58)}.com` }, 'Email address too long'],
    ['phone of 21', { phone: '+1 302 555 0100 12345' }, 'Phone number too long'],
    ['phone starting with 0', { phone: '0302555010' }, 'Invalid phone number format'],
    ['phone too short', { phone: '+1234567' }, 'Invalid phone number format'],
    ['phone with letters', { phone: '+1 302 CALL NOW' }, 'Invalid phone number format'],
    [
      'privacy not accepted',
      { acceptPrivacyPolicy: false },
      'You must accept the privacy policy and terms & conditions to proceed',
    ],
    [
      'privacy missing',
      { acceptPrivacyPolicy: undefined },
      'You must accept the privacy policy and terms & conditions to proceed',
    ],
    ['website honeypot filled', { website: 'http://spam.example' }, 'Bot detected'],
    ['company_website honeypot filled', { company_website: 'ACME' }, 'Bot detected'],
  ];

  it.each(refused)("%s → 400 with the rule's message and nothing written", async (_name, override, message) => {
    const [code] = await addCodes(t.db, mac, [randomCode('RULE')]);
    const before = await counts();
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send({ ...redeemBody({ voucherCode: code }), ...override });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe(message);
    expect(res.body.error).toBe('Bad Request');
    expect(res.body.errors).toEqual(expect.arrayContaining([expect.objectContaining({ message })]));
    expect(await counts()).toEqual(before);
  });

  it('accepts every value at its upper bound, trims, upper-cases the code and lower-cases the e-mail', async () => {
    const code = `A${long(99, 'b')}`;
    await addCodes(t.db, mac, [code.toUpperCase()]);
    const email = `${long(64)}@${long(63)}.${long(63)}.${long(57)}.com`; // 254 characters
    expect(email).toHaveLength(254);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(
        redeemBody({
          voucherCode: `  ${code}  `,
          firstName: `  ${'É'.repeat(50)} `,
          lastName: "O'Neil-Smith Jr",
          email: `  ${email.toUpperCase()} `,
          phone: '+1 (302) 555.0100',
        }),
      );
    expect(res.status).toBe(201);
    const [row] = await t.db.query(
      `SELECT r.first_name, r.last_name, c.email, r.phone, v.code FROM redemptions r
         JOIN customers c ON c.id = r.customer_id JOIN voucher_codes v ON v.id = r.voucher_code_id
        WHERE v.code = $1`,
      [code.toUpperCase()],
    );
    expect(row).toEqual({
      first_name: 'É'.repeat(50),
      last_name: "O'Neil-Smith Jr",
      email,
      phone: '+1 (302) 555.0100',
      code: code.toUpperCase(),
    });
  });

  it('accepts an empty or missing phone and the shortest valid one', async () => {
    for (const phone of ['', undefined, '+12345678']) {
      const [code] = await addCodes(t.db, mac, [randomCode('PH')]);
      const res = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, phone }));
      expect(res.status).toBe(201);
    }
  });

  it('refuses a malformed JSON body with a clear message', async () => {
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .set('content-type', 'application/json')
      .send('{"voucherCode":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ statusCode: 400, message: 'The request body is not valid JSON', error: 'Bad Request' });
  });
});
