import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createAdminUser } from '../helpers/auth';
import { addCodes, addLicenseKey, keyHash, openKey, productId, PRODUCTS, randomCode } from '../helpers/factories';
import { eventually, redeemNew } from '../helpers/redemptions';
import { connectChromium, downloadedText, openPage, screenshot } from './browser';
import { countedKeyUpdate } from '../helpers/counted-sql';

/**
 * Engineer B's admin screens in Chromium against the real API on a real database: the License Manager's batch
 * entry, the Recent Redemptions list and the stat card following a customer's redemption made in a second page, the details
 * modal's manual assignment and resend, Export Selected CSV (the downloaded file is read back), and an
 * operator's view without delete or customer-data export.
 */
describe('admin console: licences and redemptions in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let proPlus: string;
  let homeBusinessWindows: string;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true' });
    browser = await connectChromium();
    proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    homeBusinessWindows = await productId(t.db, PRODUCTS.homeBusinessWindows);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A fresh user of the role signed in through the login form, on the dashboard. */
  async function adminPage(role: 'admin' | 'operator') {
    const user = await createAdminUser(t, { role });
    const opened = await openPage(browser, t.baseUrl);
    const { page } = opened;
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    return opened;
  }

  async function openTab(page: Page, name: 'License Manager' | 'Recent Redemptions' | 'Exported Vouchers') {
    await page.getByRole('tab', { name, exact: true }).click();
  }

  const rowOf = (page: Page, text: string) => page.getByRole('row').filter({ hasText: text });

  it('adds licence keys in batch: one request and one result per line', async () => {
    const existing = `DUPL-${randomCode('').slice(1)}`;
    await addLicenseKey(t.db, proPlus, existing);
    const fresh = [`BATCH-${randomCode('').slice(1)}`, `BATCH-${randomCode('').slice(1)}`];
    const { context, page, errors } = await adminPage('admin');
    await openTab(page, 'License Manager');
    await page.getByRole('group', { name: 'Total Keys' }).getByText('1', { exact: true }).waitFor();

    await page.getByRole('button', { name: 'Add License Key' }).click();
    const form = page.getByRole('form', { name: 'Add License Key' });
    await form.getByRole('combobox', { name: /Product/ }).click();
    await page.getByRole('option', { name: PRODUCTS.proPlusWindows }).click();
    await form.getByRole('switch', { name: 'Batch Entry' }).check();
    const requests: string[] = [];
    page.on(
      'request',
      (req) =>
        req.method() === 'POST' && req.url().endsWith('/api/license-keys') && requests.push(req.postData() ?? ''),
    );
    await form
      .getByRole('textbox', { name: 'License Keys (one per line)' })
      .fill(`${fresh[0].toLowerCase()}\n\n  ${fresh[1]}  \n${existing}\nbad key!\n`);
    await form.getByText('4 key(s) to add').waitFor();
    await form
      .getByRole('textbox', { name: /Download Link/ })
      .fill('https://downloads.example.com/office2024-proplus.exe');
    await form.getByRole('button', { name: 'Add 4 License Key(s)' }).click();

    const results = form.getByRole('list', { name: 'Batch results' });
    await results.waitFor();
    const items = results.getByRole('listitem');
    expect(await items.count()).toBe(4);
    expect(await items.nth(0).textContent()).toContain(`Added ${fresh[0]}`);
    expect(await items.nth(1).textContent()).toContain(`Added ${fresh[1]}`);
    expect(await items.nth(2).textContent()).toContain('This license key already exists for this product');
    expect(await items.nth(3).textContent()).toContain(
      'License key must contain only uppercase letters, numbers, and hyphens',
    );
    expect(requests).toHaveLength(4);
    const stored = await t.db.query(
      `SELECT key_ciphertext FROM license_keys WHERE product_id = $1 AND key_hash = ANY($2::bytea[])`,
      [proPlus, fresh.map((key) => keyHash(t.db, key))],
    );
    expect(stored.map((r: { key_ciphertext: Buffer }) => openKey(t.db, r.key_ciphertext)).sort()).toEqual(
      [...fresh].sort(),
    );

    // The list shows the new keys masked, the summary counts them.
    await page.getByRole('group', { name: 'Total Keys' }).getByText('3', { exact: true }).waitFor();
    const row = rowOf(page, PRODUCTS.proPlusWindows)
      .filter({ has: page.getByTestId('license-key-text') })
      .first();
    expect(await row.getByTestId('license-key-text').textContent()).toMatch(/^\*+$/);
    await screenshot(page, 'admin-license-manager-batch');
    // The browser logs the two refused lines' answers (409, 400); nothing else may go wrong.
    expect(errors.filter((e) => !/status of (409|400) /.test(e))).toEqual([]);
    expect(errors).toHaveLength(2);
    await context.close();
  });

  it('a customer redeems in a second page; the list shows it; the admin assigns a licence by hand, resends, and exports selected rows as CSV', async () => {
    // Home & Business (Windows) has no free pool key: the redemption waits for a manual licence.
    await t.db.query(countedKeyUpdate(`is_active = false`, `k.product_id = $1`), [homeBusinessWindows]);
    const [code] = await addCodes(t.db, homeBusinessWindows, [randomCode('LIVE')]);
    const { context, page, errors } = await adminPage('admin');
    await openTab(page, 'Recent Redemptions');
    await page.getByRole('table', { name: 'Recent redemptions' }).waitFor();
    const totalCard = page.getByTestId('stat-Total Redemptions');
    await totalCard.filter({ hasText: /^\d/ }).waitFor();
    const totalBefore = Number((await totalCard.textContent())!.replace(/\D/g, ''));

    // The customer, in a page of their own.
    const customer = await openPage(browser, t.baseUrl);
    await customer.page.goto('/');
    await customer.page.getByRole('textbox', { name: 'First Name' }).fill('Grace');
    await customer.page.getByRole('textbox', { name: 'Last Name' }).fill('Hopper');
    await customer.page.getByRole('textbox', { name: 'Email Address' }).fill(`grace.${code.toLowerCase()}@example.com`);
    await customer.page.getByRole('textbox', { name: 'Phone Number' }).fill('+1 302 555 0199');
    await customer.page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
    await customer.page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
    await customer.page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await customer.page.getByRole('heading', { name: 'Processing Your License' }).waitFor();
    await customer.context.close();

    // The dashboard follows without a reload.
    const row = rowOf(page, code);
    await row.waitFor();
    expect(await row.textContent()).toContain('Grace Hopper');
    await totalCard.filter({ hasText: new RegExp(`^${(totalBefore + 1).toLocaleString('en-US')}$`) }).waitFor();
    await screenshot(page, 'admin-recent-redemptions');

    // Details: manual processing, assign by hand, resend.
    await row.getByRole('button', { name: `View details of ${code}` }).click();
    const dialog = page.getByRole('dialog', { name: /Redemption Details/ });
    await dialog.getByText('No license key assigned yet (manual processing).').waitFor();
    await dialog.getByRole('button', { name: 'Assign License' }).click();
    const save = dialog.getByRole('button', { name: 'Save' });
    expect(await save.isDisabled()).toBe(true);
    const manualKey = `HAND-${randomCode('').slice(1)}`;
    await dialog.getByRole('textbox', { name: /License Key/ }).fill(`  ${manualKey} `);
    await dialog
      .getByRole('textbox', { name: /Download Link/ })
      .fill('https://downloads.example.com/office2024-hb.exe');
    await save.click();
    await page.getByText('License assigned successfully').waitFor();
    await dialog.getByTestId('details-license-key').getByText(manualKey, { exact: true }).waitFor();
    expect(await dialog.textContent()).not.toContain('MANUAL_');
    const [stored] = await t.db.query(
      `SELECT k.key_ciphertext FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
         JOIN redemptions r ON r.id = a.redemption_id JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    expect(openKey(t.db, stored.key_ciphertext)).toBe(`MANUAL_${manualKey}`);
    await screenshot(page, 'admin-redemption-details');

    await dialog.getByRole('button', { name: 'Resend Email' }).click();
    await page.getByText('Email sent successfully').waitFor();
    await eventually(
      async () => {
        const [r] = await t.db.query(
          `SELECT r.email_status FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
          [code],
        );
        return r.email_status === 'sent';
      },
      15_000,
      'the resent e-mail',
    );
    await dialog.getByRole('button', { name: 'Close' }).click();

    // A redemption with a key cannot be selected; a Mac redemption (no key) can, and is exported as CSV.
    expect(await rowOf(page, code).getByRole('checkbox').isDisabled()).toBe(true);
    const macRedemption = await redeemNew(t, mac, { firstName: 'Ada', lastName: 'Lovelace' }, 'MACX');
    await rowOf(page, macRedemption.code).waitFor();
    await rowOf(page, macRedemption.code).getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByText('1 selected').waitFor();
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      bar.getByRole('button', { name: 'Export Selected CSV' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^selected-redemptions-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await downloadedText(download);
    expect(csv.replace(/^\uFEFF/, '').split('\r\n')[0]).toBe(
      'Voucher Code,First Name,Last Name,Email,Phone,Country,Product,Email Status,License Key,Download Link,Redeemed At,Exported At,Refunded At',
    );
    expect(csv).toContain(`${macRedemption.code},Ada,Lovelace,${macRedemption.email}`);
    await page.getByText('Export Successful').waitFor();

    // It leaves Recent Redemptions for Exported Vouchers, with its Exported At.
    await rowOf(page, macRedemption.code).waitFor({ state: 'detached' });
    await openTab(page, 'Exported Vouchers');
    const exported = rowOf(page, macRedemption.code);
    await exported.waitFor();
    expect(await exported.getByRole('checkbox').count()).toBe(0);
    expect(await exported.textContent()).not.toContain('Not available');
    await page.getByText(/^Page 1 of 1$/).waitFor();
    await screenshot(page, 'admin-exported-vouchers');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('an operator sees no delete and no customer-data export, but may export selected rows', async () => {
    const waiting = await redeemNew(t, mac, { firstName: 'Op', lastName: 'View' }, 'OPER');
    const { context, page, errors } = await adminPage('operator');
    await openTab(page, 'Recent Redemptions');
    const row = rowOf(page, waiting.code);
    await row.waitFor();
    await row.getByRole('button', { name: `Resend email for ${waiting.code}` }).waitFor();
    expect(await row.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Export CSV' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Export TXT' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Fix Pending Emails' }).count()).toBe(0);
    await row.getByRole('checkbox').check();
    const bar = page.getByRole('region', { name: 'Selection' });
    await bar.getByRole('button', { name: 'Export Selected CSV' }).waitFor();
    expect(await bar.getByRole('button', { name: 'Delete Selected' }).count()).toBe(0);
    await screenshot(page, 'admin-recent-redemptions-operator');

    // The server agrees: customer data export and deletes are refused to an operator.
    const token = await page.evaluate("localStorage.getItem('adminToken')");
    const exportAll = await t
      .http()
      .get('/api/export/redeemed-vouchers?format=csv')
      .set('Authorization', `Bearer ${token}`);
    expect(exportAll.status).toBe(403);
    expect(errors).toEqual([]);
    await context.close();
  });
});
