import { existsSync, readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../helpers/app';
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
import { expectNoAxeViolations } from './axe';
import { connectChromium, openPage } from './browser';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from '../helpers/webhook-receiver';

/**
 * axe-core (WCAG 2.1 A and AA) over every screen: the public pages, the success pages in each state, the admin
 * login, every dashboard tab (the review queue and Settings' risk and marketplace cards among them), the voucher-codes
 * page and the main dialogs. 0 violations.
 */
describe('accessibility (axe-core, WCAG 2.1 AA)', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true', TRUST_PROXY: 'loopback', ...RECEIVERS_ON_LOOPBACK });
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function withPage(fn: (page: Page) => Promise<void>, headers?: Record<string, string>) {
    const { context, page } = await openPage(browser, t.baseUrl, headers ? { extraHTTPHeaders: headers } : {});
    try {
      await fn(page);
    } finally {
      await context.close();
    }
  }

  /** A redemption made through the API: the success-page path with its token. */
  async function redeemed(product: string, withKey: boolean): Promise<string> {
    const [code] = await addCodes(t.db, product, [randomCode('AXE')]);
    if (withKey) await addLicenseKey(t.db, product, `AXE-${randomCode('K')}`);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    return res.body.successToken;
  }

  it.each([
    ['/', 'Redeem Your Office License'],
    ['/privacy-policy', 'Privacy Policy'],
    ['/terms-conditions', 'Terms'],
    ['/geo-blocked', 'Access Restricted'],
    ['/no-such-page', 'Page Not Found'],
  ])('public page %s', async (path, heading) => {
    await withPage(async (page) => {
      await page.goto(path);
      await page.getByRole('heading', { level: 1, name: new RegExp(heading) }).waitFor();
      await expectNoAxeViolations(page);
    });
  });

  it('the redeem form with its validation errors, and the Redemption Failed dialog', async () => {
    await withPage(async (page) => {
      await page.goto('/');
      // The prerendered form is on screen before the app has taken it over; leaving a field counts from then.
      await page.locator('form[data-ready]').waitFor();
      await page.getByRole('textbox', { name: 'First Name' }).focus();
      await page.getByRole('textbox', { name: 'Email Address' }).fill('not-an-address');
      await page.getByRole('textbox', { name: 'Last Name' }).focus();
      await page.getByText('Invalid email address').waitFor();
      await page.getByText('First Name is required').waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole('textbox', { name: 'First Name' }).fill('Ann');
      await page.getByRole('textbox', { name: 'Last Name' }).fill('Lee');
      await page.getByRole('textbox', { name: 'Email Address' }).fill('ann.axe@example.com');
      await page.getByRole('textbox', { name: 'Voucher Code' }).fill('NO-SUCH-CODE-1');
      await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
      await page.getByRole('button', { name: 'Redeem Voucher' }).click();
      await page.getByRole('dialog', { name: 'Redemption Failed' }).waitFor();
      await expectNoAxeViolations(page);
    });
  });

  it('success pages: Windows with its key, Windows waiting for a key, Mac, verifying, access denied', async () => {
    const windows = await redeemed(await licenseManagedProduct(t.db, `Axe ${randomCode('W')}`), true);
    const waiting = await redeemed(await licenseManagedProduct(t.db, `Axe ${randomCode('P')}`), false);
    const mac = await redeemed(await productId(t.db, PRODUCTS.homeBusinessMac), false);
    await withPage(async (page) => {
      await page.goto(`/success/windows?token=${windows}`);
      await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
      await expectNoAxeViolations(page);

      await page.goto(`/success/windows?token=${waiting}`);
      await page.getByRole('heading', { name: 'Processing Your License' }).waitFor();
      await expectNoAxeViolations(page);

      await page.goto(`/success/mac?token=${mac}`);
      await page.getByRole('heading', { name: 'Redemption Successful!' }).waitFor();
      await expectNoAxeViolations(page);

      // Verifying: the token check held back until the page has been judged.
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/api/success-token/**', async (route) => {
        await held;
        await route.continue();
      });
      await page.goto(`/success/mac?token=${mac}`, { waitUntil: 'commit' });
      await page.getByText('Verifying access...').waitFor();
      await expectNoAxeViolations(page);
      release();
      await page.getByText('Verifying access...').waitFor({ state: 'detached' });
      await page.unroute('**/api/success-token/**');

      await page.goto('/success/windows?token=not-a-real-token');
      await page.getByRole('heading', { name: 'Access Denied' }).waitFor();
      await expectNoAxeViolations(page);
    });
  });

  it('the licence centre: request form, "check your inbox", signed in with the licences, the erase confirmation', async () => {
    const email = `axe.centre.${randomCode('e').toLowerCase()}@example.com`;
    const windows = await licenseManagedProduct(t.db, `Axe Centre ${randomCode('W')}`);
    for (const product of [windows, await productId(t.db, PRODUCTS.homeBusinessMac)]) {
      const [code] = await addCodes(t.db, product, [randomCode('AXEC')]);
      if (product === windows) await addLicenseKey(t.db, product, `AXEC-${randomCode('K')}`);
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email }))
        .expect(201);
    }
    await withPage(async (page) => {
      await page.goto('/my-licences');
      await page.getByRole('heading', { level: 1, name: 'My Licences' }).waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole('textbox', { name: 'E-mail address' }).fill('not-an-address');
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByText('Invalid email address').waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole('textbox', { name: 'E-mail address' }).fill(email);
      await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
      await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
      await expectNoAxeViolations(page);

      // No SMTP here: the file mailer's .eml (quoted-printable) carries the link.
      const path = await eventually(
        async () => {
          const dir = join(t.dataDir, 'mail');
          const mails = existsSync(dir)
            ? readdirSync(dir).map((f) =>
                readFileSync(join(dir, f), 'utf8')
                  .replace(/=\r?\n/g, '')
                  .replace(/=3D/g, '='),
              )
            : [];
          const mail = mails.find((m) => m.includes(email) && m.includes('/my-licences?token='));
          return mail && /\/my-licences\?token=[\w-]+/.exec(mail)![0];
        },
        20_000,
        'sign-in e-mail',
      );
      await page.goto(path);
      await page.getByText(`Signed in as ${email}`).waitFor();
      await page.getByRole('heading', { level: 3, name: /Axe Centre/ }).waitFor();
      await page.getByRole('heading', { level: 3, name: PRODUCTS.homeBusinessMac }).waitFor();
      await expectNoAxeViolations(page);
      await page.getByRole('button', { name: 'Delete my personal data' }).click();
      await page.getByRole('dialog', { name: 'Delete your personal data?' }).waitFor();
      await expectNoAxeViolations(page);
      await page.keyboard.press('Escape');
      await page.getByRole('dialog').waitFor({ state: 'detached' });
    });
  });

  async function signIn(page: Page) {
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    await page.getByRole('button', { name: 'View Voucher Codes' }).first().waitFor();
  }

  async function tab(page: Page, name: string) {
    await page.getByRole('tab', { name, exact: true }).click();
    await page.getByRole('tabpanel').waitFor();
    await page.waitForLoadState('networkidle');
  }

  /** Opens a dialog with `open`, judges it, closes it with Escape. */
  async function dialog(page: Page, open: () => Promise<void>, exclude?: string[]) {
    await open();
    await page.getByRole('dialog').waitFor();
    await page.waitForLoadState('networkidle');
    await expectNoAxeViolations(page, { exclude });
    await page.keyboard.press('Escape');
    await page.getByRole('dialog').waitFor({ state: 'detached' });
  }

  it('admin: login, every dashboard tab and the voucher-codes page', async () => {
    const product = await productId(t.db, PRODUCTS.proPlusWindows);
    await addCodes(t.db, product, [randomCode('AXE'), randomCode('AXE')]);
    await redeemed(product, true);
    await withPage(async (page) => {
      await page.goto('/admin/login');
      await page.getByRole('button', { name: 'Sign In' }).waitFor();
      await expectNoAxeViolations(page);
      await signIn(page);
      await expectNoAxeViolations(page);
      for (const name of ['License Manager', 'Recent Redemptions', 'Exported Vouchers', 'Review', 'Settings']) {
        await tab(page, name);
        await expectNoAxeViolations(page);
      }
      await page.goto(`/admin/voucher-codes/${product}`);
      await page.getByRole('heading', { level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      await expectNoAxeViolations(page);
    });
  });

  it('admin dialogs: redemption details, assign licence, voucher codes, e-mail template, add licence key, change password, reset operator, Clean System', async () => {
    const product = await licenseManagedProduct(t.db, `Axe ${randomCode('D')}`);
    await addCodes(t.db, product, [randomCode('AXE')]);
    await redeemed(product, false);
    await withPage(async (page) => {
      await signIn(page);
      await dialog(page, () => page.getByRole('button', { name: 'View Voucher Codes' }).first().click());
      // The preview shows the e-mail as staff wrote it (a sandboxed frame): the editor around it is judged.
      await dialog(page, () => page.getByRole('button', { name: 'Email Template' }).first().click(), [
        'iframe[title="Email preview"]',
      ]);
      await dialog(page, () => page.getByRole('button', { name: 'Change Password' }).click());
      await dialog(page, () => page.getByRole('button', { name: 'Reset Operator' }).click());

      await tab(page, 'License Manager');
      await page.getByRole('button', { name: 'Add License Key' }).click();
      await page.getByRole('form', { name: 'Add License Key' }).waitFor();
      await expectNoAxeViolations(page);

      await tab(page, 'Recent Redemptions');
      await dialog(page, async () => {
        await page
          .getByRole('button', { name: /^View details of / })
          .first()
          .click();
        // The History section (docs/product.md §20.3) is judged with its events loaded.
        await page.getByRole('dialog').getByRole('list', { name: 'Redemption history' }).waitFor();
        await page.getByRole('dialog').getByRole('button', { name: 'Assign License' }).click();
      });

      await tab(page, 'Settings');
      await dialog(page, () => page.getByRole('button', { name: 'Clean System' }).click());
    });
  });

  it('Settings → Webhooks: add an endpoint (secret shown once), send a test event, see the delivery in the log', async () => {
    const receiver = await startReceiver(() => ({ status: 202 }));
    try {
      await withPage(async (page) => {
        await signIn(page);
        await tab(page, 'Settings');
        const form = page.getByRole('form', { name: 'Add webhook' });
        await form.getByRole('textbox', { name: /Endpoint URL/ }).fill(receiver.url);
        await form.getByRole('checkbox', { name: 'voucher.voided' }).check();
        await form.getByRole('button', { name: 'Add Webhook' }).click();
        const secretDialog = page.getByRole('dialog', { name: 'Webhook signing secret' });
        await secretDialog.waitFor();
        expect(await secretDialog.getByTestId('webhook-secret').textContent()).toMatch(/^whsec_/);
        await expectNoAxeViolations(page);
        await secretDialog.getByRole('button', { name: 'Done' }).click();
        await secretDialog.waitFor({ state: 'detached' });

        const endpoint = page.getByRole('article', { name: `Webhook ${receiver.url}` });
        await endpoint.getByText('No deliveries yet.').waitFor();
        await endpoint.getByRole('button', { name: 'Send test event' }).click();
        const log = endpoint.getByRole('table', { name: `Deliveries to ${receiver.url}` });
        // The log polls: the delivery shows up, then settles as delivered with the receiver's 202.
        const row = log.getByRole('row').filter({ hasText: 'webhook.test' });
        await row
          .filter({ hasText: /delivered/i })
          .filter({ hasText: '202' })
          .waitFor({ timeout: 20_000 });
        expect(receiver.received).toHaveLength(1);
        await page.waitForLoadState('networkidle');
        await expectNoAxeViolations(page);

        await endpoint.getByRole('button', { name: `Delete webhook ${receiver.url}` }).click();
        await page.getByRole('dialog', { name: 'Delete webhook' }).getByRole('button', { name: 'Delete' }).click();
        await endpoint.waitFor({ state: 'detached' });
      });
    } finally {
      await receiver.close();
    }
  });
});
