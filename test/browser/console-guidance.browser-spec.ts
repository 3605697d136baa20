import type { Browser, Locator, Page } from 'playwright-core';
import { createAdminUser, type TestAdmin } from '../helpers/auth';
import { addLicenseKey, randomCode } from '../helpers/factories';
import { licenceCentreClient, startLicenceCentre, type LicenceCentre } from '../helpers/licence-centre';
import { connectChromium, openPage, screenshot } from './browser';

/**
 * What the console tells a person in Chromium against the real API and database: an empty Recent Redemptions list
 * whose rows were only exported says so and leads to Exported Vouchers, and each export says whether it marks rows
 * (docs/product.md §3.17); a customer who erased their data is "Erased on <date>" in the voucher code lists, as in the
 * redemption list (§21.3); a "Login Failed" toast does not follow a successful sign-in onto the dashboard (§3.18).
 */
describe('console guidance in a real browser', () => {
  let centre: LicenceCentre | undefined;
  let browser: Browser;
  const t = () => centre!.t;
  const { redeem, signIn } = licenceCentreClient(
    () => centre!.t,
    () => centre!.smtp,
  );

  beforeAll(async () => {
    centre = await startLicenceCentre('Guidance', { SERVE_FRONTEND: 'true' });
    browser = await connectChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await centre?.close();
  });

  /** A page in en-US and UTC, so that dates read as the test computes them. */
  const newPage = () => openPage(browser, t().baseUrl, { locale: 'en-US', timezoneId: 'UTC' });

  async function signInAs(page: Page, user: TestAdmin) {
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
  }

  const rowOf = (scope: Page | Locator, text: string) => scope.getByRole('row').filter({ hasText: text });

  it('an erased customer is "Erased on <date>" in the voucher code page and modal, not a blank cell', async () => {
    const { windows } = centre!;
    await addLicenseKey(t().db, windows, `ERAS-${randomCode('').slice(1)}`);
    const email = `erased.${randomCode('e').toLowerCase()}@example.com`;
    const { code, id } = await redeem(windows, { email, firstName: 'Erin', lastName: 'Erased' });
    const customer = await signIn(email);
    await t().http().post('/api/customer/erasure').set(customer).send({ confirm: true }).expect(202);
    const [{ erased_at: erasedAt }] = await t().db.query(`SELECT erased_at FROM redemptions WHERE id = $1`, [id]);
    const erasedText = `Erased on ${new Date(erasedAt).toLocaleDateString('en-US', {
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      timeZone: 'UTC',
    })}`;
    const [{ name: productName }] = await t().db.query(`SELECT name FROM products WHERE id = $1`, [windows]);

    const { context, page, errors } = await newPage();
    await signInAs(page, await createAdminUser(t(), { role: 'admin' }));

    // The page: All Codes (Customer column) and Redeemed.
    await page.goto(`/admin/voucher-codes/${windows}`);
    await rowOf(page, code).getByText(erasedText, { exact: true }).waitFor();
    await page.getByRole('tab', { name: 'Redeemed', exact: true }).click();
    await rowOf(page, code).getByText(erasedText, { exact: true }).waitFor();
    expect(await rowOf(page, code).textContent()).not.toContain('—');
    await screenshot(page, 'console-guidance-erased-codes-page');

    // The modal from the product card: All (Customer) and Redeemed (Redeemed By).
    await page.goto('/admin');
    await page.getByRole('region', { name: productName }).getByRole('button', { name: 'View Voucher Codes' }).click();
    const dialog = page.getByRole('dialog');
    await rowOf(dialog, code).getByText(erasedText, { exact: true }).waitFor();
    await dialog.getByRole('tab', { name: 'Redeemed', exact: true }).click();
    await dialog.getByRole('columnheader', { name: 'Redeemed By' }).waitFor();
    await rowOf(dialog, code).getByText(erasedText, { exact: true }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
