import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, createAdminUser, fixTotpClock, type TestAdmin } from '../helpers/auth';
import { connectChromium, downloadedText, openPage, screenshot } from './browser';
import { expectNoAxeViolations } from './axe';

/**
 * Issue 16 in a real browser: a member of staff enrols two-factor authentication on the Security screen (the
 * secret read from the page, codes made with otplib), signs in with a code and with a recovery code, and ends
 * sessions; the screen passes axe's WCAG 2 A/AA rules.
 */
let t: TestApp;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let errors: string[];

beforeAll(async () => {
  t = await startTestApp({ SERVE_FRONTEND: 'true' });
  browser = await connectChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await t?.close();
});

beforeEach(async () => {
  ({ context, page, errors } = await openPage(browser, t.baseUrl, { acceptDownloads: true }));
  // The server's clock stands still in one 30 s step for each test: the codes typed are exact, however slow the page.
  ({ codeAt } = fixTotpClock(t));
});

afterEach(async () => {
  jest.restoreAllMocks();
  await context?.close();
});

const toastTitled = (title: string) =>
  page.getByRole('region', { name: /notifications/i }).getByText(title, { exact: true });

/** The TOTP code of the step `steps` from the server's (fixed) now, as the authenticator app would show it then. */
let codeAt: (secret: string, steps?: number) => string;

async function credentials(user: TestAdmin): Promise<void> {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign In' }).click();
}

async function onDashboard(): Promise<void> {
  await page.waitForURL((url) => url.pathname === '/admin');
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

async function logout(): Promise<void> {
  await page.getByRole('button', { name: 'Logout' }).click();
  await page.waitForURL((url) => url.pathname === '/admin/login');
}

/** Signs in through the API (another device), with a recovery code when the account has two-factor on. */
async function otherDevice(user: TestAdmin, userAgent: string, recoveryCode?: string) {
  const res = await t
    .http()
    .post('/api/admin/login')
    .set('User-Agent', userAgent)
    .send({ username: user.username, password: user.password, ...(recoveryCode && { recoveryCode }) })
    .expect(200);
  return res.body.accessToken as string;
}

describe('Security screen in a real browser', () => {
  // 120 s: seven password checks (scrypt, 16 MiB each) and four axe scans take 31–47 s on a quiet machine, over 60 s
  // beside the accessibility suite's scans on two busy cores.
  it('enrols 2FA with the keyboard, then signs in with a code and with a recovery code, and ends sessions', async () => {
    const user = await createAdminUser(t);
    await credentials(user);
    await onDashboard();

    // Opened from the header beside Change Password.
    await page.getByRole('link', { name: 'Security' }).click();
    await page.waitForURL((url) => url.pathname === '/admin/security');
    await page.getByRole('heading', { name: 'Two-Factor Authentication' }).waitFor();
    await page.getByTestId('session-row').first().waitFor();
    await expectNoAxeViolations(page);

    // Keyboard only from here to the recovery codes.
    await page.getByRole('button', { name: 'Set Up Two-Factor Authentication' }).focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type(user.password);
    await page.keyboard.press('Enter');
    const secretText = page.getByTestId('totp-secret');
    await secretText.waitFor();
    const secret = (await secretText.textContent())!.trim();
    expect(secret).toMatch(/^[A-Z2-7]{32}$/);
    await page.getByRole('img', { name: 'QR code for your authenticator app' }).waitFor();
    await expectNoAxeViolations(page);
    await screenshot(page, 'security-2fa-qr');
    await page.keyboard.type(codeAt(secret));
    await page.keyboard.press('Enter');

    const recoveryCodes = await shownRecoveryCodes();
    expect(recoveryCodes).toHaveLength(10);
    await toastTitled('Two-Factor Authentication Enabled').waitFor();
    await expectNoAxeViolations(page);
    await screenshot(page, 'security-recovery-codes');
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download .txt' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^recovery-codes-\d{4}-\d{2}-\d{2}\.txt$/);
    const saved = await downloadedText(download);
    for (const code of recoveryCodes) expect(saved).toContain(code);
    await page.getByRole('button', { name: 'I Have Saved My Codes' }).click();
    await page.getByText('Two-factor authentication is on for your account.').waitFor();
    const [row] = await t.db.query(`SELECT two_factor_enabled FROM admin_users WHERE id = $1`, [user.id]);
    expect(row.two_factor_enabled).toBe(true);

    // Sign in with a code: the next step's (the enrolment spent this one's).
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await onDashboard();
    await logout();
    await credentials(user);
    await toastTitled('Two-Factor Authentication Required').waitFor();
    await page.getByLabel('Authentication Code').fill(codeAt(secret, 1));
    await page.getByRole('button', { name: 'Verify Code' }).click();
    await onDashboard();

    // And with a recovery code, once.
    await logout();
    await credentials(user);
    await page.getByRole('button', { name: 'Use a Recovery Code' }).click();
    await page.getByLabel('Recovery Code').fill(recoveryCodes[0]);
    await page.getByRole('button', { name: 'Verify Code' }).click();
    await onDashboard();
    const [use] = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'login.recovery-code' AND admin_user_id = $1`,
      [user.id],
    );
    expect(use).toEqual({ success: true, details: { recoveryCodesLeft: 9 } });

    // Sessions: this browser plus a laptop elsewhere; the laptop is signed out from here.
    const laptop = await otherDevice(
      user,
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      recoveryCodes[1],
    );
    await page.getByRole('link', { name: 'Security' }).click();
    const rows = page.getByTestId('session-row');
    await expectRows(2);
    await rows
      .filter({ hasText: 'This device' })
      .getByText(/Chrome/)
      .waitFor();
    const laptopRow = rows.filter({ hasText: 'Firefox 133 on Windows' });
    expect(await laptopRow.getByText('This device').count()).toBe(0);
    await expectNoAxeViolations(page);
    await screenshot(page, 'security-sessions');
    await laptopRow.getByRole('button', { name: /^Sign out/ }).click();
    await toastTitled('Session signed out').waitFor();
    await expectRows(1);
    await t.http().get('/api/admin/me').set(bearer(laptop)).expect(401);

    // Two more elsewhere, then "Sign out everywhere else".
    const phone = await otherDevice(
      user,
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 Version/18.0 Mobile/15E148 Safari/604.1',
      recoveryCodes[2],
    );
    const tablet = await otherDevice(
      user,
      'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
      recoveryCodes[3],
    );
    await page.reload();
    await expectRows(3);
    await page.getByRole('button', { name: 'Sign out everywhere else' }).click();
    const dialog = page.getByRole('dialog', { name: 'Sign out everywhere else' });
    await dialog.getByText('Sign out all 2 other session(s)? This device stays signed in.').waitFor();
    await dialog.getByRole('button', { name: 'Sign out' }).click();
    await toastTitled('Signed out everywhere else').waitFor();
    await expectRows(1);
    for (const token of [phone, tablet]) await t.http().get('/api/admin/me').set(bearer(token)).expect(401);
    // This device still works.
    await page.getByRole('link', { name: 'Back to Dashboard' }).click();
    await onDashboard();
    expect(pageErrors()).toEqual([]);
  }, 120_000);

  it('disables 2FA and regenerates recovery codes with a current code; the old codes stop working', async () => {
    const user = await createAdminUser(t);
    await credentials(user);
    await onDashboard();
    await page.goto('/admin/security');
    await page.getByRole('button', { name: 'Set Up Two-Factor Authentication' }).click();
    await page.getByRole('textbox', { name: 'Current Password' }).fill(user.password);
    await page.getByRole('button', { name: 'Continue' }).click();
    const secret = (await page.getByTestId('totp-secret').textContent())!.trim();
    await page.getByLabel('Authentication Code').fill(codeAt(secret, -1));
    await page.getByRole('button', { name: 'Enable Two-Factor Authentication' }).click();
    const first = await shownRecoveryCodes();
    await page.getByRole('button', { name: 'I Have Saved My Codes' }).click();

    const regenerate = page.getByRole('form', { name: 'Regenerate Recovery Codes' });
    await regenerate.getByLabel('Current code').fill('000000');
    await regenerate.getByRole('button', { name: 'Regenerate Recovery Codes' }).click();
    await toastTitled('Failed to regenerate recovery codes').waitFor();
    await regenerate.getByLabel('Current code').fill(codeAt(secret, 0));
    await regenerate.getByRole('button', { name: 'Regenerate Recovery Codes' }).click();
    const second = await shownRecoveryCodes();
    expect(second).toHaveLength(10);
    expect(second.some((c) => first.includes(c))).toBe(false);
    await t
      .http()
      .post('/api/admin/login')
      .send({ username: user.username, password: user.password, recoveryCode: first[0] })
      .expect(401);
    await page.getByRole('button', { name: 'I Have Saved My Codes' }).click();

    const disable = page.getByRole('form', { name: 'Disable Two-Factor Authentication' });
    await disable.getByLabel('Current code').fill(codeAt(secret, 1));
    await disable.getByRole('button', { name: 'Disable Two-Factor Authentication' }).click();
    await page.getByRole('button', { name: 'Set Up Two-Factor Authentication' }).waitFor();
    const [row] = await t.db.query(`SELECT two_factor_enabled FROM admin_users WHERE id = $1`, [user.id]);
    expect(row.two_factor_enabled).toBe(false);
    expect(pageErrors()).toEqual([]);
  });
});

/** Waits until the sessions table shows exactly `n` rows. */
async function expectRows(n: number): Promise<void> {
  const rows = page.getByTestId('session-row');
  await rows.nth(n - 1).waitFor();
  await rows.nth(n).waitFor({ state: 'detached' });
}

/** The ten recovery codes once the list shows them. */
async function shownRecoveryCodes(): Promise<string[]> {
  const items = page.getByRole('list', { name: 'Recovery codes' }).getByRole('listitem');
  await items.nth(9).waitFor();
  return (await items.allTextContents()).map((c) => c.trim());
}

/** Page errors, less the browser's own note of each refused request (a wrong code answers 400 on purpose). */
const pageErrors = () => errors.filter((e) => !e.startsWith('Failed to load resource'));
