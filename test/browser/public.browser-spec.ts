import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { connectChromium, openPage, screenshot } from './browser';

/**
 * The customer's journeys through the built web app in Chromium, against the real API on a real database.
 * Each test redeems its own codes; the German-IP test sends X-Forwarded-For, which the app trusts from loopback.
 */
describe('public pages in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let proPlus: string;
  let homeBusinessWindows: string;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp({
      SERVE_FRONTEND: 'true',
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: 'DE',
      SUPPORT_EMAIL: 'help@licences.test',
      COMPANY_NAME: 'Licence Desk Ltd',
    });
    browser = await connectChromium();
    proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    homeBusinessWindows = await productId(t.db, PRODUCTS.homeBusinessWindows);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /**
   * `/` is prerendered: the form is drawn before the app has loaded. The app sets the title with the company
   * name once it has taken the page over; the flows below start there (typing earlier has its own test).
   */
  async function openRedeemPage(page: Page) {
    await page.goto('/');
    // A function, not a string: the page's CSP forbids eval.
    await page.waitForFunction(
      (title) => (globalThis as any).document.title === title,
      'Redeem Your Office License | Licence Desk Ltd',
    );
  }

  /** Holds the app's entry script back until the returned function is called: the page stays prerendered HTML. */
  async function holdAppScript(page: Page): Promise<() => void> {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    await page.route(/\/assets\/index-[\w-]+\.js$/, async (route) => {
      await held;
      await route.continue();
    });
    return release;
  }

  async function fillRedeemForm(page: Page, code: string, email = `ann.${randomCode('x').toLowerCase()}@example.com`) {
    await page.getByRole('textbox', { name: 'First Name' }).fill('Ann');
    await page.getByRole('textbox', { name: 'Last Name' }).fill('Lee');
    await page.getByRole('textbox', { name: 'Email Address' }).fill(email);
    await page.getByRole('textbox', { name: 'Phone Number' }).fill('+1 302 555 0100');
    await page.getByRole('textbox', { name: 'Voucher Code' }).pressSequentially(code.toLowerCase());
    await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
  }

  it('Windows code: the customer sees the key panel and the download link, and copies the key', async () => {
    const [code] = await addCodes(t.db, proPlus, [randomCode('WIN')]);
    const key = `KEY${randomCode('').slice(1)}-ABCDE-FGHIJ-KLMNO`;
    await addLicenseKey(t.db, proPlus, key, { downloadLink: 'https://downloads.example.com/office2024-proplus.exe' });
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    const scripts: string[] = [];
    page.on('request', (req) => req.resourceType() === 'script' && scripts.push(req.url()));

    await openRedeemPage(page);
    await page.getByRole('heading', { level: 1, name: 'Redeem Your Office License | Licence Desk Ltd' }).waitFor();
    await fillRedeemForm(page, code);
    await expectValue(page.getByRole('textbox', { name: 'Voucher Code' }), code.toUpperCase());
    await screenshot(page, 'redeem-page');
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();

    await page.waitForURL(/\/success\/windows\?token=/);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    await page
      .getByText('Voucher successfully redeemed! Check your email for the download link and product license.')
      .waitFor();
    const download = page.getByRole('link', { name: 'Download Now' });
    expect(await download.getAttribute('href')).toBe('https://downloads.example.com/office2024-proplus.exe');
    expect(await download.getAttribute('target')).toBe('_blank');
    const shown = await page.getByTestId('product-key').textContent();
    expect(shown).toMatch(/^KEY.+-•••••-•••••-KLMNO$/);
    expect(shown).not.toContain('FGHIJ');
    await page.getByText('16.0.17830.20138').waitFor();
    await screenshot(page, 'success-windows');

    await page.getByRole('button', { name: 'Copy Product Key' }).click();
    await page.getByText('Product Key has been copied to your clipboard').waitFor();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

    // The public pages never download the admin console.
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.filter((url) => /AdminApp/.test(url))).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('Mac code: the three packages in order, redeemed with the keyboard only', async () => {
    const [code] = await addCodes(t.db, mac, [randomCode('MAC')]);
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await openRedeemPage(page);
    await page.getByRole('textbox', { name: 'First Name' }).focus();
    await page.keyboard.type('Mia');
    const email = `mia.${randomCode('m').toLowerCase()}@example.com`;
    for (const value of ['Mac', email, '+44 20 7946 0958', code.toLowerCase()]) {
      await page.keyboard.press('Tab');
      await page.keyboard.type(value);
    }
    await page.keyboard.press('Tab');
    expect(await page.evaluate(`document.activeElement?.getAttribute('name')`)).toBe('acceptPrivacyPolicy');
    await page.keyboard.press('Space');
    await page.keyboard.press('Enter');

    await page.waitForURL(/\/success\/mac\?token=/);
    await page.getByRole('heading', { name: 'Redemption Successful!' }).waitFor();
    await page.getByText(email).waitFor();
    const names = await page
      .getByRole('region', { name: 'Installation packages' })
      .getByRole('heading', { level: 3 })
      .allTextContents();
    expect(names).toEqual(['Office Removal Tool', 'Office 2024 Installer', 'License Activation']);
    await page.getByText('macOS 13.0 or later').waitFor();
    await screenshot(page, 'success-mac');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a used code shows "Redemption Failed"; Try Again clears and focuses the code field', async () => {
    const [code] = await addCodes(t.db, proPlus, [randomCode('USED')]);
    await addLicenseKey(t.db, proPlus, `USED-${randomCode('K')}`);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);

    const { context, page } = await openPage(browser, t.baseUrl);
    await openRedeemPage(page);
    await fillRedeemForm(page, code);
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    const dialog = page.getByRole('dialog', { name: 'Redemption Failed' });
    await dialog.getByText('This voucher code has already been redeemed.').waitFor();
    await screenshot(page, 'redeem-failed-modal');
    await dialog.getByRole('button', { name: 'Try Again' }).click();
    await dialog.waitFor({ state: 'detached' });
    await expectValue(page.getByRole('textbox', { name: 'Voucher Code' }), '');
    await page.waitForFunction(`document.activeElement?.getAttribute('name') === 'voucherCode'`);
    expect(await page.getByRole('textbox', { name: 'First Name' }).inputValue()).toBe('Ann');
    await context.close();
  });

  it('a code whose key pool is empty shows "Processing Your License"', async () => {
    const [code] = await addCodes(t.db, homeBusinessWindows, [randomCode('POOL')]);
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await openRedeemPage(page);
    await fillRedeemForm(page, code);
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await page.waitForURL(/\/success\/windows\?token=/);
    await page.getByRole('heading', { name: 'Processing Your License' }).waitFor();
    await page.getByText('License Assignment in Progress').waitFor();
    await page.getByText("What's Next?").waitFor();
    expect(await page.getByRole('button', { name: 'Copy Product Key' }).count()).toBe(0);
    await screenshot(page, 'success-windows-processing');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a customer in Germany lands on /geo-blocked', async () => {
    const [code] = await addCodes(t.db, proPlus, [randomCode('GEO')]);
    const { context, page } = await openPage(browser, t.baseUrl);
    await page.setExtraHTTPHeaders({ 'X-Forwarded-For': '85.214.132.117' });
    await openRedeemPage(page);
    await fillRedeemForm(page, code);
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await page.waitForURL(/\/geo-blocked$/);
    await page.getByRole('heading', { name: 'Access Restricted' }).waitFor();
    await page.getByText('Region: Germany').waitFor();
    await page.getByText('Error Code: GEO_BLOCKED').waitFor();
    expect(await page.getByRole('dialog').count()).toBe(0);
    await screenshot(page, 'geo-blocked');
    const [row] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [code]);
    expect(row.is_redeemed).toBe(false);
    await context.close();
  });

  it('/success/windows without a token lands on /; a bad token shows "Access Denied" then goes home', async () => {
    const { context, page } = await openPage(browser, t.baseUrl);
    await page.goto('/success/windows');
    await page.waitForURL((url) => url.pathname === '/');
    await page.getByRole('heading', { level: 1, name: /Redeem Your Office License/ }).waitFor();

    await page.goto('/success/mac?token=not-a-real-token');
    await page.getByRole('heading', { name: 'Access Denied' }).waitFor();
    await page.getByText('Invalid or expired access token').waitFor();
    await screenshot(page, 'success-access-denied');
    await page.waitForURL((url) => url.pathname === '/');
    await context.close();
  });

  it('/ is drawn before its scripts load; what is typed meanwhile is kept when the app takes over', async () => {
    const [code] = await addCodes(t.db, proPlus, [randomCode('EARLY')]);
    await addLicenseKey(t.db, proPlus, `EARLY-${randomCode('').slice(1)}-ABCDE-FGHIJ`);
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    const requests: string[] = [];
    page.on('request', (req) => requests.push(new URL(req.url()).pathname));
    // The app's entry script is held back until the form has been filled in.
    const release = await holdAppScript(page);
    await page.goto('/');
    await page.getByRole('heading', { level: 1, name: 'Redeem Your Office License | Licence Desk Ltd' }).waitFor();
    await fillRedeemForm(page, code);
    expect(await page.title()).toBe('Redeem Your Office License');
    release();

    // The app has taken over: the button the checkbox enables works, with everything typed before.
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await page.waitForURL(/\/success\/windows\?token=/);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    const redemption = await t.db.query(
      `SELECT c.first_name FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id JOIN customers c ON c.id = r.customer_id WHERE v.code = $1`,
      [code],
    );
    expect(redemption).toEqual([{ first_name: 'Ann' }]);
    // The public config came with the page; the success page's token check was announced with it and used once.
    expect(requests.filter((p) => p === '/api/public-config')).toEqual([]);
    expect(requests.filter((p) => p.startsWith('/api/success-token/'))).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('what was typed before the app took over is judged at once: a bad address shows its message', async () => {
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    const release = await holdAppScript(page);
    await page.goto('/');
    await page.getByRole('textbox', { name: 'Email Address' }).fill('not-an-address');
    await page.getByRole('textbox', { name: 'First Name' }).fill('Ann');
    release();
    await page.locator('form[data-ready]').waitFor();
    await page.getByText('Invalid email address').waitFor();
    expect(await page.getByRole('textbox', { name: 'Email Address' }).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('textbox', { name: 'First Name' }).getAttribute('aria-invalid')).toBe('false');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the redeem page fits a phone screen without sideways scrolling', async () => {
    const { context, page, errors } = await openPage(browser, t.baseUrl, {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    await page.goto('/');
    await page.getByRole('link', { name: 'Contact Support' }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    await screenshot(page, 'redeem-page-mobile');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('policies, region notice and 404 render from the server on a direct visit', async () => {
    const { context, page, errors } = await openPage(browser, t.baseUrl);
    for (const [path, heading, shot] of [
      ['/privacy-policy', 'Privacy Policy', 'privacy-policy'],
      ['/terms-conditions', 'Terms & Conditions', 'terms-conditions'],
      ['/no/such/page', '404 Page Not Found', 'not-found'],
    ] as const) {
      const response = await page.goto(path);
      expect(response?.status()).toBe(200);
      await page.getByRole('heading', { level: 1, name: heading }).waitFor();
      await page.getByRole('contentinfo').getByRole('link', { name: 'Privacy Policy' }).waitFor();
      await screenshot(page, shot);
    }
    await page.goto('/terms-conditions');
    await page.getByText('Effective date: August 15, 2025').waitFor();
    await page.getByRole('link', { name: 'help@licences.test' }).first().waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});

async function expectValue(locator: ReturnType<Page['getByRole']>, value: string): Promise<void> {
  expect(await locator.inputValue()).toBe(value);
}
