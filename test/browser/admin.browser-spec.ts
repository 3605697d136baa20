import { mkdirSync, readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { generateSecret, generateSync } from 'otplib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createAdminUser, issueToken, type TestAdmin } from '../helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';

/**
 * Real-browser flows of the admin console (issue 6, engineer A's screens): Debian's Chromium through
 * playwright-core against the real app (API + built web app) on a fresh PostgreSQL database.
 */
const root = join(__dirname, '..', '..');
const results = join(root, 'test-results');
mkdirSync(results, { recursive: true });

let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;

beforeAll(async () => {
  t = await startTestApp({ SERVE_FRONTEND: 'true' });
  browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

beforeEach(async () => {
  context = await browser.newContext({ baseURL: t.baseUrl, viewport: { width: 1366, height: 900 }, acceptDownloads: true });
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

// Transitions finished first (tab indicator, dialog fade), so the picture shows the settled screen.
const shot = (name: string) => page.screenshot({ path: join(results, `admin-${name}.png`), fullPage: true, animations: 'disabled' });

async function signIn(user: TestAdmin, password = user.password): Promise<void> {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL((url) => url.pathname === '/admin');
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

/** The SPEC §6 storage keys: adminToken, authToken, adminRefreshToken (evaluated in the page). */
const storedTokens = () =>
  page.evaluate<Array<string | null>>(`['adminToken', 'authToken', 'adminRefreshToken'].map((key) => localStorage.getItem(key))`);

const tab = (name: string) => page.getByRole('tab', { name, exact: true });
const toastTitled = (title: string) => page.getByRole('region', { name: /notifications/i }).getByText(title, { exact: true });

describe('admin console in a real browser', () => {
  it('sends a visitor without a session to the login page, and an admin signs in to the dashboard with five tabs', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    await page.goto('/admin');
    await page.waitForURL((url) => url.pathname === '/admin/login');
    await page.getByRole('button', { name: 'Sign In' }).waitFor();
    await shot('login');

    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill('Wrong!Password#123');
    await page.getByRole('button', { name: 'Sign In' }).click();
    await toastTitled('Login Failed').waitFor();
    await page.getByText('Invalid username or password').first().waitFor();
    expect(await page.getByLabel('Password').inputValue()).toBe('');

    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    for (const name of ['Products', 'License Manager', 'Recent Redemptions', 'Exported Vouchers', 'Settings']) await tab(name).waitFor();
    await page.getByRole('button', { name: 'Reset Operator' }).waitFor();
    const stored = await storedTokens();
    expect(stored[0]).toBeTruthy();
    expect(stored[1]).toBe(stored[0]);
    expect(stored[2]).toBeTruthy();
    await page.getByTestId('stat-Total Redemptions').filter({ hasText: /^\d+$/ }).waitFor();
    await shot('dashboard');

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/login');
    expect(await storedTokens()).toEqual([null, null, null]);
    const [session] = await t.db.query(`SELECT is_active FROM admin_sessions WHERE admin_user_id = $1 ORDER BY created_at DESC LIMIT 1`, [admin.id]);
    expect(session.is_active).toBe(false);
  });

  it('asks an account with two-factor authentication for its 6-digit code', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const secret = generateSecret();
    await t.db.query(`UPDATE admin_users SET two_factor_secret = $2, two_factor_enabled = true WHERE id = $1`, [admin.id, secret]);

    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await toastTitled('Two-Factor Authentication Required').waitFor();
    const code = page.getByLabel('Authentication Code');
    expect(await code.getAttribute('maxlength')).toBe('6');
    await page.getByRole('button', { name: 'Back to Login' }).waitFor();
    await shot('login-2fa');

    await code.fill(generateSync({ secret }));
    await page.getByRole('button', { name: 'Verify Code' }).click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  });

  it('uploads a CSV of voucher codes with a progress bar and shows the inserted, duplicate and invalid counts', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const product = await productId(t.db, PRODUCTS.homeBusinessWindows);
    const existing = randomCode('DUP');
    await addCodes(t.db, product, [existing]);
    const fresh = [randomCode('UP'), randomCode('UP'), randomCode('UP')];

    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.homeBusinessWindows });
    await card.getByLabel(`Voucher file for ${PRODUCTS.homeBusinessWindows}`).setInputFiles({
      name: 'codes.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['code', ...fresh, existing, 'bad code!'].join('\n')),
    });
    await card.getByText('codes.csv').waitFor();
    await card.getByRole('button', { name: 'Upload Codes' }).click();
    const report = card.getByTestId('upload-report');
    await report.waitFor();
    expect((await report.innerText()).replace(/\s+/g, ' ')).toContain('3 inserted, 1 duplicate, 1 invalid');
    await toastTitled('Upload Successful').waitFor();
    const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM voucher_codes WHERE code = ANY($1)`, [fresh]);
    expect(count).toBe(3);
    await shot('products-upload');

    // A larger file over a slowed-down upload link: the progress bar moves before the report arrives.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: 256 * 1024 });
    const many = Array.from({ length: 40_000 }, (_, i) => `BULK-${i.toString().padStart(6, '0')}-${fresh[0].slice(-6)}`);
    await card.getByLabel(`Voucher file for ${PRODUCTS.homeBusinessWindows}`).setInputFiles({
      name: 'many.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(many.join('\n')),
    });
    await card.getByRole('button', { name: 'Upload Codes' }).click();
    const progress = card.getByRole('progressbar', { name: 'Upload progress' });
    await progress.waitFor();
    // The bar moves: some progress is shown before the upload completes.
    let value = 0;
    for (let i = 0; i < 200 && !(value > 0 && value < 100); i++) {
      value = Number(await progress.getAttribute('aria-valuenow'));
      if (!(value > 0 && value < 100)) await page.waitForTimeout(50);
    }
    expect(value).toBeGreaterThan(0);
    expect(value).toBeLessThan(100);
    await shot('products-upload-progress');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });
    await card.getByText(`${many.length} inserted`, { exact: false }).waitFor({ timeout: 60_000 });
    await progress.waitFor({ state: 'detached' });

    // The voucher codes modal lists the new codes.
    await card.getByRole('button', { name: 'View Voucher Codes' }).click();
    const dialog = page.getByRole('dialog');
    const [{ total }] = await t.db.query(`SELECT count(*)::int AS total FROM voucher_codes WHERE product_id = $1`, [product]);
    await dialog.getByTestId('modal-total').getByText(`${total.toLocaleString('en-US')} total`).waitFor();
    await dialog.getByText(`Showing 1-50 of ${total.toLocaleString('en-US')} codes`).waitFor();
    await dialog.getByText(`Page 1 of ${Math.ceil(total / 50)}`).waitFor();
    await dialog.getByRole('button', { name: 'Next' }).click();
    await dialog.getByText(`Page 2 of ${Math.ceil(total / 50)}`).waitFor();
    await dialog.getByRole('tab', { name: 'Unredeemed' }).click();
    await dialog.getByText(`Page 1 of ${Math.ceil(total / 50)}`).waitFor();
    await dialog.getByRole('button', { name: 'Export Codes' }).waitFor();
    await shot('voucher-codes-modal');
  });

  it('lists, pages and deletes voucher codes on the voucher codes page', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const product = await productId(t.db, PRODUCTS.proPlusWindows);
    const codes = Array.from({ length: 3 }, () => randomCode('PAGE'));
    await addCodes(t.db, product, codes);
    await signIn(admin);
    await page.goto(`/admin/voucher-codes/${product}`);
    await page.getByRole('heading', { name: `Voucher Codes - ${PRODUCTS.proPlusWindows}` }).waitFor();
    await page.getByRole('cell', { name: codes[0], exact: true }).waitFor();
    await page.getByText(/^Page 1 of \d+$/).waitFor();
    await shot('voucher-codes-page');

    await page.getByRole('button', { name: `Delete ${codes[0]}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await toastTitled('Deleted').waitFor();
    await page.getByRole('cell', { name: codes[0], exact: true }).waitFor({ state: 'detached' });
    const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM voucher_codes WHERE code = $1`, [codes[0]]);
    expect(count).toBe(0);

    // Export Unredeemed downloads the server's CSV under its filename.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Export Unredeemed' }).click()]);
    expect(download.suggestedFilename()).toMatch(/^unredeemed-vouchers-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync((await download.path())!, 'utf8');
    expect(csv).toContain(codes[1]);
    expect(csv).not.toContain(codes[0]);
    await toastTitled('Export Successful').waitFor();

    await page.goto('/admin/voucher-codes/not-a-product');
    await page.getByText('Invalid product ID').waitFor();
  });

  it('shows an operator no Settings tab, no Reset Operator and no unredeemed export', async () => {
    const operator = await createAdminUser(t, { role: 'operator' });
    await signIn(operator);
    await tab('Exported Vouchers').waitFor();
    expect(await tab('Settings').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reset Operator' }).count()).toBe(0);
    await page.getByRole('button', { name: 'Change Password' }).waitFor();
    await shot('operator-dashboard');

    const card = page.getByRole('region', { name: PRODUCTS.proPlusWindows });
    await card.getByRole('button', { name: 'View Voucher Codes' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByRole('tab', { name: 'Unredeemed' }).click();
    await dialog.getByRole('button', { name: 'Delete All Unredeemed' }).waitFor();
    expect(await dialog.getByRole('button', { name: 'Export Codes' }).count()).toBe(0);
  });

  it("shows another admin's change live: the Data Updated notice and the new counts without a reload", async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const other = await issueToken(t, (await createAdminUser(t, { role: 'operator' })).id);
    const product = await productId(t.db, PRODUCTS.proPlusWindows);
    const codes = await addCodes(t.db, product, [randomCode('RT'), randomCode('RT'), randomCode('RT')]);
    // Redemptions spread over the last days give the chart something to show.
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const redeemed = await addCodes(t.db, mac, Array.from({ length: 9 }, () => randomCode('CHART')));
    for (const [i, code] of redeemed.entries()) {
      await t.http().post('/api/redeem-voucher').send(redeemBody({ voucherCode: code })).expect(201);
      await t.db.query(
        `UPDATE redemptions SET redeemed_at = now() - make_interval(days => $2)
          WHERE voucher_code_id = (SELECT id FROM voucher_codes WHERE code = $1)`,
        [code, [0, 0, 1, 1, 1, 2, 4, 5, 5][i]],
      );
    }

    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.proPlusWindows });
    const unredeemed = card.getByTestId('count-unredeemed');
    const before = Number((await unredeemed.innerText()).replace(/,/g, ''));
    const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM voucher_codes WHERE product_id = $1 AND NOT is_redeemed`, [product]);
    expect(before).toBe(count);

    const [{ id }] = await t.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [codes[0]]);
    await t.http().delete(`/api/voucher-codes/${id}`).set(bearer(other.token)).expect(200);
    await page.getByRole('status').getByText('Data Updated').waitFor();
    await unredeemed.filter({ hasText: new RegExp(`^${(before - 1).toLocaleString('en-US')}$`) }).waitFor({ timeout: 5000 });
    // The notice goes away after 3 s.
    await page.getByRole('status').getByText('Data Updated').waitFor({ state: 'detached', timeout: 6000 });

    await page.getByRole('combobox', { name: 'Time Period' }).click();
    await page.getByRole('option', { name: 'Last 7 Days' }).click();
    await page.getByRole('img', { name: /^Daily redemptions: \d+ over 7 days$/ }).waitFor();
    await page.getByTestId('stat-Total Redemptions').filter({ hasText: /^([9]|[1-9]\d+)$/ }).waitFor();
    await page.mouse.move(0, 0);
    await shot('dashboard-live');
    if (process.env.UPDATE_DOCS_SCREENSHOTS) {
      await page.screenshot({ path: join(root, 'docs', 'images', 'dashboard.png'), fullPage: true, animations: 'disabled' });
    }
  });

  it('edits an e-mail template with a live preview, sends a test e-mail and saves', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.homeBusinessWindows });
    await card.getByRole('button', { name: 'Email Template' }).click();
    const dialog = page.getByRole('dialog', { name: `Email Template - ${PRODUCTS.homeBusinessWindows}` });
    await dialog.getByLabel('Email Subject').fill('Order {{voucher_code}} is ready');
    await dialog.getByLabel('Email Template').fill('<h1>Hello {{customer_name}}</h1><p>Key: {{ license_key }}</p><a href="{{download_link}}">Download</a>');
    await dialog.getByTestId('preview-subject').getByText('Order SAMPLE-VOUCHER-1234 is ready').waitFor();
    const preview = page.frameLocator('iframe[title="Email preview"]');
    await preview.getByRole('heading', { name: 'Hello John Doe' }).waitFor();
    await preview.getByText('Key: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX').waitFor();
    await shot('email-template');

    // Test e-mails go to staff addresses only (DECISIONS §12): a colleague's account address.
    const qa = await createAdminUser(t, { role: 'operator', username: 'qa_browser' });
    const qaEmail = `${qa.username}@example.com`;
    await dialog.getByLabel('Send test to').fill(qaEmail);
    await dialog.getByRole('button', { name: 'Send Test Email' }).click();
    await page.getByText(`Test email sent to ${qaEmail}`).waitFor();
    const mails = readdirSync(join(t.dataDir, 'mail')).map((f) => readFileSync(join(t.dataDir, 'mail', f), 'utf8'));
    expect(mails.some((m) => m.includes(`To: ${qaEmail}`) && m.includes('[TEST] Order SAMPLE-VOUCHER-1234 is ready'))).toBe(true);

    await dialog.getByRole('button', { name: 'Save Template' }).click();
    await toastTitled('Template Updated').waitFor();
    const [row] = await t.db.query(`SELECT email_subject, email_template FROM products WHERE name = $1`, [PRODUCTS.homeBusinessWindows]);
    expect(row.email_subject).toBe('Order {{voucher_code}} is ready');
    expect(row.email_template).toContain('<h1>Hello {{customer_name}}</h1>');
  });

  it('updates the dashboard live when a customer redeems, and Clean System empties the lists', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const product = await productId(t.db, PRODUCTS.homeBusinessMac);
    const [code] = await addCodes(t.db, product, [randomCode('LIVE')]);
    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.homeBusinessMac });
    await card.getByText('Unredeemed').waitFor();

    // A customer redeems in a second page; Mac products need no key, the redemption is immediate.
    const customer = await context.newPage();
    const res = await customer.request.post('/api/redeem-voucher', { data: redeemBody({ voucherCode: code }) });
    expect(res.status()).toBe(201);
    await customer.close();
    // Redemptions emit through the mail/real-time path; the stats poll every 10 s picks the change up regardless.
    await page.getByTestId('stat-Total Redemptions').filter({ hasNotText: /^0$/ }).waitFor({ timeout: 15_000 });

    await tab('Settings').click();
    await page.getByRole('heading', { name: 'Danger Zone' }).waitFor();
    await page.getByRole('heading', { name: 'System Information' }).waitFor();
    await shot('settings');
    await page.getByRole('button', { name: 'Clean System' }).click();
    const dialog = page.getByRole('dialog');
    const confirm = dialog.getByRole('button', { name: 'Clean System' });
    expect(await confirm.isDisabled()).toBe(true);
    await dialog.getByLabel('Confirmation').fill('CLEAN SYSTEM');
    await confirm.click();
    await toastTitled('System Cleaned').waitFor();
    await page.getByRole('status').getByText('Data Updated').waitFor();
    const [{ codes, redemptions }] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM voucher_codes) AS codes, (SELECT count(*)::int FROM redemptions) AS redemptions`,
    );
    expect([codes, redemptions]).toEqual([0, 0]);
    await page.getByTestId('stat-Total Redemptions').filter({ hasText: /^0$/ }).waitFor();
    await tab('Products').click();
    const counts = await page.getByRole('region', { name: PRODUCTS.homeBusinessMac }).innerText();
    expect(counts.replace(/\s+/g, ' ')).toMatch(/0 Unredeemed 0 Redeemed/);
  });

  it('changes the own password with the strength meter and SPEC messages', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    await signIn(admin);
    await page.getByRole('button', { name: 'Change Password' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Current Password', { exact: true }).fill(admin.password);
    await dialog.getByLabel('New Password', { exact: true }).fill('short');
    await dialog.getByLabel('Confirm New Password', { exact: true }).fill('other');
    expect(await dialog.getByTestId('password-strength').innerText()).toBe('Weak');
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    await dialog.getByText('Password must be at least 12 characters').waitFor();
    await dialog.getByText("Passwords don't match").waitFor();

    const next = 'N3w!Passw0rd#2026';
    await dialog.getByLabel('New Password', { exact: true }).fill(next);
    await dialog.getByLabel('Confirm New Password', { exact: true }).fill(next);
    expect(await dialog.getByTestId('password-strength').innerText()).toBe('Strong');
    await dialog.getByRole('button', { name: 'Show new password' }).click();
    expect(await dialog.getByLabel('New Password', { exact: true }).getAttribute('type')).toBe('text');
    await shot('change-password');
    await dialog.getByRole('button', { name: 'Change Password' }).click();
    await toastTitled('Password Changed').waitFor();

    await page.getByRole('button', { name: 'Logout' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/login');
    await signIn(admin, next);
  });

  it('resets the operator password and shows it once', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    await signIn(admin);
    await page.getByRole('button', { name: 'Reset Operator' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reset Password' }).click();
    const password = await page.getByTestId('operator-password').innerText();
    expect(password).toHaveLength(20);
    await page.getByRole('button', { name: 'Copy password' }).waitFor();
    await shot('reset-operator');
    const res = await page.request.post('/api/admin/login', { data: { username: 'operator', password } });
    expect(res.status()).toBe(200);
  });
});
