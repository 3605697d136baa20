import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createAdminUser, issueToken } from '../helpers/auth';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from '../helpers/factories';
import { expectNoAxeViolations } from './axe';
import { connectChromium, openPage, screenshot } from './browser';

const OFF = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};

/**
 * docs/product.md §25 in Chromium against the real API on a real database: an admin turns the disposable e-mail
 * rule on in Settings → Risk; a customer with such an address redeems and their success page shows manual
 * processing without a key; an operator approves the case in the Review tab; the customer's page, opened again,
 * shows the key.
 */
describe('risk review in a real browser', () => {
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true', GEO_BLOCKED_COUNTRIES: '' });
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function signedIn(page: Page, role: 'admin' | 'operator') {
    const user = await createAdminUser(t, { role });
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  }

  it('Settings → Risk holds a redemption; Approve in the Review tab turns the success page into the key', async () => {
    const admin = await openPage(browser, t.baseUrl);
    await signedIn(admin.page, 'admin');
    await admin.page.getByRole('tab', { name: 'Settings', exact: true }).click();
    const card = admin.page.getByRole('region', { name: 'Risk' });
    await card.getByLabel('Disposable e-mail domains').check();
    await card.getByRole('button', { name: 'Save rules' }).click();
    await admin.page.getByText('Risk rules saved', { exact: true }).waitFor();
    const api = bearer((await issueToken(t, (await createAdminUser(t)).id)).token);
    const rules = (await t.http().get('/api/risk/rules').set(api).expect(200)).body;
    expect(rules.disposableEmail).toEqual({ enabled: true, action: 'review' });

    try {
      const product = await licenseManagedProduct(t.db, `Review ${randomCode('P')}`);
      const key = `RVWKEY-${randomCode('K').slice(1, 11)}-BROWSER`;
      await addLicenseKey(t.db, product, key);
      const [code] = await addCodes(t.db, product, [randomCode('RB')]);
      const email = `farm.${randomCode('e').toLowerCase()}@mailinator.com`;
      const redeemed = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email }))
        .expect(201);
      const customer = await openPage(browser, t.baseUrl);
      const successUrl = `/success/windows?token=${encodeURIComponent(redeemed.body.successToken)}`;
      await customer.page.goto(successUrl);
      await customer.page.getByRole('heading', { name: 'Processing Your License' }).waitFor();
      expect(await customer.page.getByTestId('product-key').count()).toBe(0);
      expect(await customer.page.content()).not.toContain(key);

      // The operator's console: the Review tab lists the case with its rule, Approve decides it.
      const operator = await openPage(browser, t.baseUrl);
      await signedIn(operator.page, 'operator');
      await operator.page.getByRole('tab', { name: 'Review', exact: true }).click();
      const held = operator.page.getByRole('article', { name: `Held redemption ${code}` });
      await held.getByText('disposableEmail').waitFor();
      await held.getByText(email).waitFor();
      await held.getByRole('button', { name: 'Evidence' }).click();
      await held.getByText('Same e-mail: none').waitFor();
      // axe (WCAG 2.1 AA) on the case with its rules and evidence open.
      await expectNoAxeViolations(operator.page);
      await screenshot(operator.page, 'risk-review-tab');
      await held.getByRole('button', { name: 'Approve' }).click();
      await operator.page.getByText('Redemption approved', { exact: true }).waitFor();
      await held.waitFor({ state: 'detached' });

      // The page checks a manual-processing token again every 30 s; opened again it asks at once.
      await customer.page.goto(successUrl);
      await customer.page.getByRole('heading', { name: 'Your Product Key' }).waitFor();
      await customer.page.getByRole('button', { name: 'Show product key' }).click();
      await customer.page.getByTestId('product-key').getByText(key, { exact: true }).waitFor();
      expect(await customer.page.getByRole('heading', { name: 'Processing Your License' }).count()).toBe(0);
      expect([...admin.errors, ...customer.errors, ...operator.errors]).toEqual([]);
      await Promise.all([admin.context.close(), customer.context.close(), operator.context.close()]);
    } finally {
      await t.http().put('/api/risk/rules').set(api).send(OFF);
    }
  });
});
