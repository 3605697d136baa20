import { startTestApp, TestApp } from './helpers/app';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';

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
      productName: PRODUCTS.proPlusWindows,
      licenseKey: 'ABCDE-12345-FGHIJ',
      downloadLink: 'https://dl.example.com/pp.exe',
    });
    const [voucher] = await t.db.query(`SELECT is_redeemed, redeemed_at FROM voucher_codes WHERE code = $1`, [code]);
    expect(voucher.is_redeemed).toBe(true);
    expect(voucher.redeemed_at).not.toBeNull();
    const [key] = await t.db.query(`SELECT current_activations FROM license_keys WHERE license_key = 'ABCDE-12345-FGHIJ'`);
    expect(key.current_activations).toBe(1);
  });

  it('redeems a Mac code with the product link and no key', async () => {
    const [code] = await addCodes(t.db, mac, [randomCode('MAC')]);
    const res = await t.http().post('/api/redeem-voucher').send(redeemBody({ voucherCode: code })).expect(201);
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
    await t.http().post('/api/redeem-voucher').send(redeemBody({ voucherCode: code })).expect(201);
    const again = await t.http().post('/api/redeem-voucher').send(redeemBody({ voucherCode: code })).expect(409);
    expect(again.body.message).toBe('This voucher code has already been redeemed.');
  });
});
