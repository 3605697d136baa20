import type { Browser } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createAdminUser } from '../helpers/auth';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  productId,
  PRODUCTS,
  randomCode,
  redeemBody,
} from '../helpers/factories';
import { eventually } from '../helpers/redemptions';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { connectChromium, openPage, screenshot } from './browser';

const RESEND_ANSWER = 'If this voucher was redeemed with this e-mail address, the order e-mail is on its way again.';

/**
 * docs/product.md §19.2 in Chromium against the real API, database and an SMTP server: a double click on a slow network,
 * "Didn't get the e-mail?" from the success page, and an operator voiding a refunded code from the product card.
 */
describe('customer self-service and refunds in a real browser', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SERVE_FRONTEND: 'true', SMTP_URL: smtp.url, GEO_BLOCKED_COUNTRIES: '' });
    browser = await connectChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  const messagesTo = (email: string) => smtp.messages.filter((m) => JSON.stringify(m.to).includes(email));

  it('a double click on Redeem over a slow network lands on the success page with the key, and redeems once', async () => {
    const product = await licenseManagedProduct(t.db, `Double Click ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('DBLCLICK')]);
    const key = `DBLK-${randomCode('').slice(1)}-ABCDE-FGHIJ`;
    await addLicenseKey(t.db, product, key);
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    const answers: number[] = [];
    page.on('response', (res) => res.url().endsWith('/api/redeem-voucher') && answers.push(res.status()));

    await page.goto('/');
    await page.getByRole('textbox', { name: 'First Name' }).fill('Dana');
    await page.getByRole('textbox', { name: 'Last Name' }).fill('Double');
    await page
      .getByRole('textbox', { name: 'Email Address' })
      .fill(`dana.${randomCode('d').toLowerCase()}@example.com`);
    await page.getByRole('textbox', { name: 'Phone Number' }).fill('+1 302 555 0100');
    await page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
    await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
    // A slow mobile connection from here on: every request takes at least 1.5 s to answer.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 1500,
      downloadThroughput: 40_000,
      uploadThroughput: 20_000,
    });
    await page.getByRole('button', { name: 'Redeem Voucher' }).dblclick();

    await page.waitForURL(/\/success\/windows\?token=/, { timeout: 30_000 });
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor({ timeout: 30_000 });
    expect(await page.getByTestId('product-key').textContent()).toMatch(/^DBLK-.+-FGHIJ$/);
    await screenshot(page, 'self-service-double-click-success');
    // Whatever reached the server, every answer was a success and there is exactly one redemption with one key.
    expect(answers.length).toBeGreaterThanOrEqual(1);
    expect(answers.every((s) => s === 200 || s === 201)).toBe(true);
    const rows = await t.db.query(
      `SELECT r.id, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS keys
         FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(rows).toEqual([{ id: expect.any(String), keys: 1 }]);
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('an answer lost on the way: Redeem again lands on the same success page (200), with one redemption', async () => {
    const product = await licenseManagedProduct(t.db, `Lost Answer ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('LOST')]);
    await addLicenseKey(t.db, product, `LOST-${randomCode('').slice(1)}-ABCDE`);
    const { context, page } = await openPage(browser, t.baseUrl);
    const answers: number[] = [];
    // The first redemption reaches the server, but its answer never reaches the browser (a dropped connection).
    await page.route('**/api/redeem-voucher', async (route) => {
      const response = await route.fetch();
      answers.push(response.status());
      if (answers.length === 1) await route.abort('connectionreset');
      else await route.fulfill({ response });
    });
    await page.goto('/');
    await page.getByRole('textbox', { name: 'First Name' }).fill('Lou');
    await page.getByRole('textbox', { name: 'Last Name' }).fill('Lost');
    await page.getByRole('textbox', { name: 'Email Address' }).fill(`lou.${randomCode('l').toLowerCase()}@example.com`);
    await page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
    await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    const failed = page.getByRole('dialog', { name: 'Redemption Failed' });
    await failed.waitFor();
    await failed.getByRole('button', { name: 'Close' }).click();
    await failed.waitFor({ state: 'detached' });

    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await page.waitForURL(/\/success\/windows\?token=/);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    expect(await page.getByTestId('product-key').textContent()).toMatch(/^LOST-.+-ABCDE$/);
    expect(answers).toEqual([201, 200]);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(n).toBe(1);
    await context.close();
  });

  it('an answer lost, then the page reloaded: the same form sent again lands on the success page (200), one redemption', async () => {
    const product = await licenseManagedProduct(t.db, `Reload ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('RELOAD')]);
    await addLicenseKey(t.db, product, `RLD-${randomCode('').slice(1)}-ABCDE`);
    const email = `rae.${randomCode('r').toLowerCase()}@example.com`;
    const { context, page } = await openPage(browser, t.baseUrl);
    const sent: Array<{ status: number; key: string | null }> = [];
    await page.route('**/api/redeem-voucher', async (route) => {
      const response = await route.fetch();
      sent.push({ status: response.status(), key: route.request().headers()['idempotency-key'] ?? null });
      if (sent.length === 1) await route.abort('connectionreset');
      else await route.fulfill({ response });
    });
    const fillAndSend = async () => {
      await page.locator('form[data-ready]').waitFor();
      await page.getByRole('textbox', { name: 'First Name' }).fill('Rae');
      await page.getByRole('textbox', { name: 'Last Name' }).fill('Reload');
      await page.getByRole('textbox', { name: 'Email Address' }).fill(email);
      await page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
      await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
      await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    };
    await page.goto('/');
    await fillAndSend();
    await page.getByRole('dialog', { name: 'Redemption Failed' }).waitFor();
    // The customer reloads the page and fills the form in again: the tab kept the form's key.
    await page.reload();
    await fillAndSend();
    await page.waitForURL(/\/success\/windows\?token=/);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    expect(await page.getByTestId('product-key').textContent()).toMatch(/^RLD-.+-ABCDE$/);
    expect(sent.map((s) => s.status)).toEqual([201, 200]);
    expect(sent[0].key).toMatch(/^[0-9a-f]{32}$/);
    expect(sent[1].key).toBe(sent[0].key);
    // Forgotten once the success page opened: the next form in this tab gets a key of its own.
    expect(await page.evaluate("sessionStorage.getItem('redeem-idempotency-key')")).toBeNull();
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(n).toBe(1);
    await context.close();
  });

  it('a code and e-mail read elsewhere (no key of this tab) get no success page: "already redeemed"', async () => {
    const product = await licenseManagedProduct(t.db, `Replay ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('REPLAY')]);
    await addLicenseKey(t.db, product, `RPL-${randomCode('').slice(1)}-ABCDE`);
    const body = redeemBody({ voucherCode: code });
    await t
      .http()
      .post('/api/redeem-voucher')
      .set('Idempotency-Key', 'the-customers-own-form-key-0001')
      .send(body)
      .expect(201);
    const { context, page } = await openPage(browser, t.baseUrl);
    await page.goto('/');
    await page.locator('form[data-ready]').waitFor();
    await page.getByRole('textbox', { name: 'First Name' }).fill('Mallory');
    await page.getByRole('textbox', { name: 'Last Name' }).fill('Reader');
    await page.getByRole('textbox', { name: 'Email Address' }).fill(body.email);
    await page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
    await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    const failed = page.getByRole('dialog', { name: 'Redemption Failed' });
    await failed.getByText('This voucher code has already been redeemed.').waitFor();
    expect(page.url()).not.toContain('/success/');
    await context.close();
  });

  it('"Didn\'t get the e-mail?" on the success page sends the order e-mail again', async () => {
    const product = await licenseManagedProduct(t.db, `Resend ${randomCode('P')}`);
    const [code] = await addCodes(t.db, product, [randomCode('RESEND')]);
    await addLicenseKey(t.db, product, `RSND-${randomCode('').slice(1)}-ABCDE`);
    const body = redeemBody({ voucherCode: code });
    const redeemed = await t.http().post('/api/redeem-voucher').send(body).expect(201);
    await eventually(async () => messagesTo(body.email).length === 1, 20_000, 'the order e-mail');

    const { context, page, errors } = await openPage(browser, t.baseUrl);
    const scripts: string[] = [];
    page.on('request', (req) => req.resourceType() === 'script' && scripts.push(req.url()));
    await page.goto(`/success/windows?token=${encodeURIComponent(redeemed.body.successToken)}`);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    // The dialog's code is loaded only when the customer asks for it.
    const loadedBefore = scripts.length;
    await page.getByRole('button', { name: "Didn't get the e-mail?" }).click();
    const dialog = page.getByRole('dialog', { name: "Didn't get the e-mail?" });
    await dialog.waitFor();
    expect(scripts.slice(loadedBefore).some((url) => /ResendEmailDialog/.test(url))).toBe(true);
    // Both fields come filled in from the token's answer (docs/product.md §19.4): one click sends.
    expect(await dialog.getByRole('textbox', { name: 'Email Address' }).inputValue()).toBe(body.email);
    expect(await dialog.getByRole('textbox', { name: 'Voucher Code' }).inputValue()).toBe(code);
    await dialog.getByRole('button', { name: 'Send Again' }).click();
    await dialog.getByText(RESEND_ANSWER).waitFor();
    await screenshot(page, 'self-service-resend-dialog');

    await eventually(async () => messagesTo(body.email).length === 2, 20_000, 'the e-mail sent again');
    const [first, again] = messagesTo(body.email);
    expect(again.subject).toBe(first.subject);
    expect(again.text).toBe(first.text);
    expect(again.text).toMatch(/Key: RSND-/);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('"Didn\'t get the e-mail?" on the Mac success page comes with the code and the address filled in', async () => {
    const [code] = await addCodes(t.db, await productId(t.db, PRODUCTS.homeBusinessMac), [randomCode('MACRESEND')]);
    const body = redeemBody({ voucherCode: code.toLowerCase() });
    const redeemed = await t.http().post('/api/redeem-voucher').send(body).expect(201);
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await page.goto(`/success/mac?token=${encodeURIComponent(redeemed.body.successToken)}`);
    await page.getByRole('heading', { name: 'Redemption Successful!' }).waitFor();
    // The page itself shows the address, not the code (docs/product.md §2.5).
    expect(await page.locator('main').textContent()).not.toContain(code);
    await page.getByRole('button', { name: "Didn't get the e-mail?" }).click();
    const dialog = page.getByRole('dialog', { name: "Didn't get the e-mail?" });
    expect(await dialog.getByRole('textbox', { name: 'Voucher Code' }).inputValue()).toBe(code);
    expect(await dialog.getByRole('textbox', { name: 'Email Address' }).inputValue()).toBe(body.email.toLowerCase());
    await screenshot(page, 'self-service-resend-dialog-mac');
    await dialog.getByRole('button', { name: 'Send Again' }).click();
    await dialog.getByText(RESEND_ANSWER).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an operator voids a refunded code from the product card and finds it under Void', async () => {
    const name = `Refunds ${randomCode('P')}`;
    const product = await licenseManagedProduct(t.db, name);
    const [refunded, kept] = await addCodes(t.db, product, [randomCode('REFUND'), randomCode('KEEP')]);
    const operator = await createAdminUser(t, { role: 'operator' });
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(operator.username);
    await page.getByLabel('Password').fill(operator.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

    const card = page.getByRole('region', { name: `${name} (Windows)` });
    const voidCount = () => card.getByTestId('count-void').textContent();
    await eventually(async () => (await voidCount()) === '0', 20_000, 'the product card');
    await card.getByRole('button', { name: 'Void Codes' }).click();
    const dialog = page.getByRole('dialog', { name: `Void Codes - ${name} (Windows)` });
    await dialog
      .getByRole('textbox', { name: 'Voucher codes (one per line)' })
      .fill(`${refunded.toLowerCase()}\nNOT-A-CODE-OF-OURS\n`);
    await dialog.getByRole('button', { name: 'Void Codes' }).click();
    const confirm = page.getByRole('dialog', { name: 'Void Codes', exact: true });
    await confirm.getByText(`Void 2 voucher codes of ${name} (Windows)?`).waitFor();
    await confirm.getByRole('button', { name: 'Void' }).click();
    const report = dialog.getByTestId('void-report');
    await report.waitFor();
    expect(await report.innerText()).toMatch(/1 voided, 0 refunded after redemption, 0 already void, 1 unknown/);
    await screenshot(page, 'self-service-void-report');
    await dialog.getByRole('button', { name: 'Close' }).click();
    // The void's real-time event (and the dialog's own refresh) updates the card.
    await eventually(async () => (await voidCount()) === '1', 20_000, 'the void count');

    await card.getByRole('button', { name: 'View Voucher Codes' }).click();
    const codes = page.getByRole('dialog', { name: new RegExp(`Voucher Codes - ${name}`) });
    await codes.getByText('Showing 1-2 of 2 codes').waitFor();
    await codes.getByRole('tab', { name: 'Void' }).click();
    // The Void tab's own page (the All tab's rows stay shown until it arrives).
    await codes.getByText('Showing 1-1 of 1 codes').waitFor();
    const row = codes.getByRole('row').filter({ hasText: refunded });
    await row.getByText('Void', { exact: true }).waitFor();
    expect(await codes.getByRole('row').filter({ hasText: kept }).count()).toBe(0);
    await screenshot(page, 'self-service-void-tab');

    const redeem = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: refunded }))
      .expect(410);
    expect(redeem.body.message).toBe('This voucher code has been cancelled. Please contact support.');
    expect(errors).toEqual([]);
    await context.close();
  });
});
