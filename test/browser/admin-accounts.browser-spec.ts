import { generateSecret, generateSync } from 'otplib';
import { createAdminUser } from '../helpers/auth';
import { PRODUCTS } from '../helpers/factories';
import { page, shot, signIn, storedTokens, t, tab, toastTitled, useAdminConsole } from '../helpers/admin-browser';

/**
 * Real-browser flows of the admin console's accounts (issue 6, engineer A's screens): signing in and out, two-factor
 * authentication, what an operator does not see, changing the own password and resetting the operator's.
 * test/browser/admin-products.browser-spec.ts has the product screens.
 */

useAdminConsole();

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
    for (const name of ['Products', 'License Manager', 'Recent Redemptions', 'Exported Vouchers', 'Settings']) {
      await tab(name).waitFor();
    }
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
    const [session] = await t.db.query(
      `SELECT is_active FROM admin_sessions WHERE admin_user_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [admin.id],
    );
    expect(session.is_active).toBe(false);
  });

  it('asks an account with two-factor authentication for its 6-digit code', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const secret = generateSecret();
    await t.db.query(`UPDATE admin_users SET two_factor_secret = $2, two_factor_enabled = true WHERE id = $1`, [
      admin.id,
      secret,
    ]);

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

  it('changes the own password with the strength meter and the policy messages', async () => {
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
