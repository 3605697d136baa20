import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, keyHash, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { successTokenHash } from '../backend/src/modules/redemption/redemption.repository';

describe('POST /api/redeem-voucher', () => {
  let t: TestApp;
  let proPlus: string;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp();
    proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

  it('redeems a Windows code with a pool key and shows it through the success token', async () => {
    const [code] = await addCodes(t.db, proPlus, [randomCode()]);
    await addLicenseKey(t.db, proPlus, 'ABCDE-12345-FGHIJ', { downloadLink: 'https://dl.example.com/pp.exe' });
    const body = redeemBody({ voucherCode: code.toLowerCase(), email: '  Mixed.Case@Example.COM ' });

    const res = await t.http().post('/api/redeem-voucher').send(body).expect(201);
    expect(res.body).toEqual({ success: true, productName: PRODUCTS.proPlusWindows, successToken: expect.any(String) });
    expect(res.body.successToken).toMatch(/^[A-Za-z0-9_-]{43}$/);

    const view = await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
    expect(view.body).toEqual({
      isManualProcessing: false,
      customerEmail: 'mixed.case@example.com',
      voucherCode: code,
      productName: PRODUCTS.proPlusWindows,
      licenseKey: 'ABCDE-12345-FGHIJ',
      downloadLink: 'https://dl.example.com/pp.exe',
    });
    // The key is never kept by the browser's cache or one on the way (docs/security.md).
    expect(view.headers['cache-control']).toBe('no-store');
    expect(view.headers.etag).toBeUndefined();
    const [voucher] = await t.db.query(`SELECT is_redeemed, redeemed_at FROM voucher_codes WHERE code = $1`, [code]);
    expect(voucher.is_redeemed).toBe(true);
    expect(voucher.redeemed_at).not.toBeNull();
    const [key] = await t.db.query(`SELECT current_activations FROM license_keys WHERE key_hash = $1`, [
      keyHash(t.db, 'ABCDE-12345-FGHIJ'),
    ]);
    expect(key.current_activations).toBe(1);
  });

  it('redeems a Mac code with the product link and no key', async () => {
    const [code] = await addCodes(t.db, mac, [randomCode('MAC')]);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    expect(res.body.productName).toBe(PRODUCTS.homeBusinessMac);
    const view = await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200);
    expect(view.body.isManualProcessing).toBe(false);
    expect(view.body.licenseKey).toBeNull();
    expect(view.body.downloadLink).toBe('https://go.microsoft.com/fwlink/?linkid=2009112');
  });

  it('answers 404 for an unknown code and 409 for a used one', async () => {
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: 'NO-SUCH-CODE' }))
      .expect(404, {
        statusCode: 404,
        message: 'Invalid voucher code. Please check the code and try again.',
        error: 'Not Found',
      });
    const [code] = await addCodes(t.db, mac, [randomCode('USED')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    const again = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(409);
    expect(again.body.message).toBe('This voucher code has already been redeemed.');
  });

  it('50 concurrent redeems of one code: exactly one 201, the rest 409, one redemption', async () => {
    const [code] = await addCodes(t.db, mac, [randomCode('RACE')]);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        t
          .http()
          .post('/api/redeem-voucher')
          .send(redeemBody({ voucherCode: code, email: `racer${i}@example.com` })),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((s) => s === 201)).toHaveLength(1);
    expect(statuses.filter((s) => s === 409)).toHaveLength(49);
    for (const r of results.filter((r) => r.status === 409)) {
      expect(r.body.message).toBe('This voucher code has already been redeemed.');
    }
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(n).toBe(1);
  });

  it('a volume key of 3 activations and 5 racing customers: 3 keys, 2 manual, never over 3', async () => {
    const [product] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, email_subject, email_template)
       VALUES ('Volume Test (Windows)', true, 'S', 'T') RETURNING id`,
    );
    await addLicenseKey(t.db, product.id, 'VOLUME-KEY-0001', { maxActivations: 3, type: 'volume' });
    const codes = await addCodes(
      t.db,
      product.id,
      Array.from({ length: 5 }, () => randomCode('VOL')),
    );
    const results = await Promise.all(
      codes.map((code, i) =>
        t
          .http()
          .post('/api/redeem-voucher')
          .send(redeemBody({ voucherCode: code, email: `vol${i}@example.com` })),
      ),
    );
    expect(results.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    const views = await Promise.all(
      results.map((r) => t.http().get(`/api/success-token/${r.body.successToken}`).expect(200)),
    );
    const withKey = views.filter((v) => v.body.licenseKey === 'VOLUME-KEY-0001' && !v.body.isManualProcessing);
    const manual = views.filter((v) => v.body.isManualProcessing && v.body.licenseKey === null);
    expect(withKey).toHaveLength(3);
    expect(manual).toHaveLength(2);
    const [key] = await t.db.query(`SELECT current_activations FROM license_keys WHERE key_hash = $1`, [
      keyHash(t.db, 'VOLUME-KEY-0001'),
    ]);
    expect(key.current_activations).toBe(3);
    const [{ assignments }] = await t.db.query(
      `SELECT count(*)::int AS assignments FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
        WHERE k.key_hash = $1`,
      [keyHash(t.db, 'VOLUME-KEY-0001')],
    );
    expect(assignments).toBe(3);
  });

  it('the same e-mail cannot get a second licence for the same product; the second code stays unredeemed', async () => {
    const [first, second] = await addCodes(t.db, mac, [randomCode('ONE'), randomCode('TWO')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: first, email: 'once@example.com' }))
      .expect(201);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: second, email: 'ONCE@example.com' }))
      .expect(409);
    expect(res.body.message).toBe('A licence for this product has already been issued to this e-mail address.');
    const [voucher] = await t.db.query(`SELECT is_redeemed, redeemed_at FROM voucher_codes WHERE code = $1`, [second]);
    expect(voucher).toEqual({ is_redeemed: false, redeemed_at: null });
    // The same e-mail may still redeem another product.
    const [other] = await addCodes(t.db, proPlus, [randomCode('OTHER')]);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: other, email: 'once@example.com' }))
      .expect(201);
  });

  // An inactive product's codes and a pool of inactive keys (the rules, without HTTP): test/medium/redemption-rules.medium-spec.ts.

  it('unknown and expired success tokens answer 404 with the message', async () => {
    const expected = { statusCode: 404, message: 'Invalid or expired access token', error: 'Not Found' };
    await t.http().get('/api/success-token/not-a-token').expect(404, expected);
    const [code] = await addCodes(t.db, mac, [randomCode('EXP')]);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    await t.db.query(`UPDATE success_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1`, [
      successTokenHash(res.body.successToken),
    ]);
    await t.http().get(`/api/success-token/${res.body.successToken}`).expect(404, expected);
  });
});

describe('geo-blocking and rate limit', () => {
  let t: TestApp;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp({ TRUST_PROXY: 'loopback', REDEEM_RATE_LIMIT: '3' });
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

  it('a German client IP gets 451 GEO_BLOCKED and nothing is redeemed; a US IP passes', async () => {
    const [code] = await addCodes(t.db, mac, [randomCode('GEO')]);
    const blocked = await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', '85.214.132.117')
      .send(redeemBody({ voucherCode: code }));
    expect(blocked.status).toBe(451);
    expect(blocked.body).toEqual({
      statusCode: 451,
      code: 'GEO_BLOCKED',
      error: 'Access Restricted',
      message:
        "We're sorry, but this service is currently not available in your region due to regulatory requirements.",
    });
    const [voucher] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [code]);
    expect(voucher.is_redeemed).toBe(false);

    const ok = await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', '8.8.8.8')
      .send(redeemBody({ voucherCode: code }));
    expect(ok.status).toBe(201);
    // Kept with the redemption (docs/product.md §11.6), and with the new customer it made.
    const [stored] = await t.db.query(
      `SELECT r.country, r.ip_address, c.country AS customer_country, c.ip_address AS customer_ip FROM redemptions r
         JOIN customers c ON c.id = r.customer_id JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(stored).toEqual({ country: 'US', ip_address: '8.8.8.8', customer_country: 'US', customer_ip: '8.8.8.8' });
  });

  it('limits redeem attempts per IP per minute with 429 and a clear message', async () => {
    const ip = '203.0.113.7';
    const statuses: number[] = [];
    let last: { message?: string } = {};
    for (let i = 0; i < 4; i++) {
      const res = await t
        .http()
        .post('/api/redeem-voucher')
        .set('X-Forwarded-For', ip)
        .send(redeemBody({ voucherCode: 'NOPE-0000' }));
      statuses.push(res.status);
      last = res.body;
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(last.message).toBe('Too many redemption attempts. Please wait a minute and try again.');
    // Another address is not affected.
    await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', '203.0.113.8')
      .send(redeemBody({ voucherCode: 'NOPE-0000' }))
      .expect(404);
  });
});
