import { ParsedMail } from 'mailparser';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { licenseManagedProduct, randomCode } from './helpers/factories';
import { eventually, keysAssignedTo, RedeemedVoucher, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

/**
 * Backorders fill themselves: a redemption that found no key in the pool waits (manual processing) until keys are
 * added to its product's pool; then the waiting redemptions get them, oldest first, as far as the new activations go,
 * and their order e-mails go out, without Fix Pending Emails.
 */
describe('backorders: keys added to a pool go to the redemptions waiting for one', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    // POOL_ALERT_MIN 1: an empty pool is low, so its alert (with the customers waiting) goes out.
    t = await startTestApp({ SMTP_URL: smtp.url, POOL_ALERT_MIN: '1', POOL_ALERT_DAYS: '0' });
    admin = await tokenFor(t, 'admin');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const addKey = (productId: string, licenseKey: string, maxActivations = 1) =>
    t
      .http()
      .post('/api/license-keys')
      .set(bearer(admin))
      .send({
        productId,
        licenseKey,
        downloadLink: 'https://dl.example.com/backorder.exe',
        licenseType: maxActivations > 1 ? 'volume' : 'single-user',
        ...(maxActivations > 1 ? { maxActivations } : {}),
      })
      .expect(201);
  const mailTo = (email: string) => smtp.messages.filter((m) => (m.to as { text: string }).text === email);
  const orderMail = (r: RedeemedVoucher): Promise<ParsedMail> =>
    eventually(async () => mailTo(r.email)[0], 20_000, `the order e-mail to ${r.email}`);
  const successOf = async (r: RedeemedVoucher) =>
    (await t.http().get(`/api/success-token/${r.successToken}`).expect(200)).body;
  const forecastOf = async (productId: string) => {
    const res = await t.http().get('/api/license-pool/forecast').set(bearer(admin)).expect(200);
    return res.body.find((f: { productId: string }) => f.productId === productId);
  };
  const waiting = async (r: RedeemedVoucher): Promise<boolean> =>
    (await t.db.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [r.id]))[0].awaiting_license;
  /** Redemptions one after the other: each is older than the next. */
  const redeemInTurn = async (product: string, n: number) => {
    const out: RedeemedVoucher[] = [];
    for (let i = 0; i < n; i++) out.push(await redeemNew(t, product, {}, 'BO'));
    return out;
  };

  it('a waiting redemption gets the key added, its e-mail goes out and its success token answers the key', async () => {
    const product = await licenseManagedProduct(t.db, `Backorder single ${randomCode()}`);
    const name = `${(await t.db.query(`SELECT name FROM products WHERE id = $1`, [product]))[0].name}`;
    const [r] = await redeemInTurn(product, 1);
    expect(await successOf(r)).toMatchObject({ isManualProcessing: true, licenseKey: null });
    expect(await forecastOf(product)).toMatchObject({ availableActivations: 0, waitingCustomers: 1 });
    // The empty pool's alert says who waits.
    const alert = await eventually(
      async () => smtp.messages.find((m) => m.subject === `Licence pool low: ${name}`),
      20_000,
      'the low-pool alert',
    );
    expect(alert.text).toContain('1 customer waiting for a key');

    const key = `BACKO-${randomCode('K')}`;
    await addKey(product, key);
    const mail = await orderMail(r);
    expect(mail.text).toContain(`Key: ${key}`);
    expect(await successOf(r)).toMatchObject({ isManualProcessing: false, licenseKey: key });
    expect(await forecastOf(product)).toMatchObject({ availableActivations: 0, waitingCustomers: 0 });
  });

  it('batch entry: more waiting than activations, only the oldest get keys, never past a key’s limit', async () => {
    const product = await licenseManagedProduct(t.db, `Backorder batch ${randomCode()}`);
    const rs = await redeemInTurn(product, 5);
    expect(await forecastOf(product)).toMatchObject({ waitingCustomers: 5 });

    // Batch Entry sends the keys one after the other: each goes to the oldest still waiting.
    const [a, b] = [`BATCH-A${randomCode('K')}`, `BATCH-B${randomCode('K')}`];
    await addKey(product, a);
    await addKey(product, b);
    expect((await orderMail(rs[0])).text).toContain(`Key: ${a}`);
    expect((await orderMail(rs[1])).text).toContain(`Key: ${b}`);
    expect(await forecastOf(product)).toMatchObject({ waitingCustomers: 3 });

    // A volume key of 2 activations for 3 waiting: the two oldest get it, the key is full, the youngest waits.
    const volume = `BATCH-V${randomCode('K')}`;
    await addKey(product, volume, 2);
    expect((await orderMail(rs[2])).text).toContain(`Key: ${volume}`);
    expect((await orderMail(rs[3])).text).toContain(`Key: ${volume}`);
    expect(await keysAssignedTo(t, rs[3].id)).toEqual([
      { license_key: volume, max_activations: 2, current_activations: 2 },
    ]);
    expect(await waiting(rs[4])).toBe(true);
    expect(await keysAssignedTo(t, rs[4].id)).toEqual([]);
    expect(await successOf(rs[4])).toMatchObject({ isManualProcessing: true, licenseKey: null });
    expect(await forecastOf(product)).toMatchObject({ availableActivations: 0, waitingCustomers: 1 });
  });

  it('two adds at once give each waiting redemption one key, the oldest first', async () => {
    const product = await licenseManagedProduct(t.db, `Backorder race ${randomCode()}`);
    const rs = await redeemInTurn(product, 3);
    const keys = [`RACE-A${randomCode('K')}`, `RACE-B${randomCode('K')}`];
    await Promise.all(keys.map((k) => addKey(product, k)));
    await Promise.all([orderMail(rs[0]), orderMail(rs[1])]);
    const got = [...(await keysAssignedTo(t, rs[0].id)), ...(await keysAssignedTo(t, rs[1].id))];
    expect(got.map((k) => k.license_key).sort()).toEqual([...keys].sort());
    expect(got.every((k) => k.current_activations === 1)).toBe(true);
    expect(await waiting(rs[2])).toBe(true);
    expect(await forecastOf(product)).toMatchObject({ waitingCustomers: 1 });
  });
});
