import type { Browser, Locator, Page } from 'playwright-core';
import { createAdminUser, type TestAdmin } from '../helpers/auth';
import { addLicenseKey, randomCode } from '../helpers/factories';
import { licenceCentreClient, startLicenceCentre, type LicenceCentre } from '../helpers/licence-centre';
import { redeemNew } from '../helpers/redemptions';
import { connectChromium, downloadedText, openPage, screenshot } from './browser';

const EMPTY_RECENT = 'No redemptions found. Redemptions will appear here once customers start redeeming vouchers.';
const ALL_EXPORTED = (n: number) =>
  `No redemptions waiting for export: all have been exported (${n}). Exported redemptions are listed in Exported Vouchers.`;

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

  it('Recent Redemptions emptied by an export says the rows were exported and opens Exported Vouchers', async () => {
    const { windows, mac } = centre!;
    await addLicenseKey(t().db, windows, `GUID-${randomCode('').slice(1)}`);
    const first = await redeemNew(t(), windows, { firstName: 'Emma', lastName: 'Export' }, 'EXPA');
    // A Mac redemption has no pool key: it can be selected.
    const second = await redeemNew(t(), mac, { firstName: 'Ezra', lastName: 'Export' }, 'EXPB');
    const { context, page, errors } = await newPage();
    await signInAs(page, await createAdminUser(t(), { role: 'admin' }));
    await page.getByRole('tab', { name: 'Recent Redemptions', exact: true }).click();
    await rowOf(page, second.code).waitFor();

    // Every export button says whether it marks rows exported, on screen and as its description.
    const describe = async (name: string) => {
      const id = await page.getByRole('button', { name, exact: true }).getAttribute('aria-describedby');
      return page.locator(`[id="${id}"]`).textContent();
    };
    const marks =
      'Export CSV and Export TXT mark the redemptions they contain as exported: they move to Exported Vouchers.';
    await page.getByText(marks).waitFor();
    expect(await describe('Export CSV')).toBe(marks);
    expect(await describe('Export TXT')).toBe(marks);
    expect(await describe('Export Redeemed Codes CSV')).toBe(
      'Export Redeemed Codes marks nothing: the redemptions stay in this list.',
    );
    await rowOf(page, second.code).getByRole('checkbox').check();
    const selected = 'Export Selected marks the selected redemptions as exported: they move to Exported Vouchers.';
    await page.getByRole('region', { name: 'Selection' }).getByText(selected).waitFor();
    expect(await describe('Export Selected CSV')).toBe(selected);
    expect(await describe('Export Selected TXT')).toBe(selected);
    await page.getByRole('button', { name: 'Clear Selection' }).click();

    // A search nothing matches, exported or not: the spec's empty text.
    await page.getByRole('textbox', { name: 'Search redemptions' }).fill(`NOTHING${randomCode('')}`);
    await page.getByText(EMPTY_RECENT).waitFor();
    await page.getByRole('textbox', { name: 'Search redemptions' }).fill('');
    await rowOf(page, second.code).waitFor();

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export CSV', exact: true }).click(),
    ]);
    expect(await downloadedText(download)).toContain(first.code);
    await page.getByText('Export Successful').waitFor();
    const [{ exported, waiting }] = await t().db.query(
      `SELECT count(*) FILTER (WHERE exported)::int AS exported, count(*) FILTER (WHERE NOT exported)::int AS waiting
         FROM redemptions`,
    );
    expect(waiting).toBe(0);

    // The list is empty because its rows were exported: it says so, never "no redemptions found".
    const hint = page.getByRole('status').filter({ hasText: ALL_EXPORTED(exported) });
    await hint.waitFor();
    expect(await page.getByText(EMPTY_RECENT).count()).toBe(0);
    await screenshot(page, 'console-guidance-all-exported');

    // A search matching only exported rows says how many exported ones match.
    await page.getByRole('textbox', { name: 'Search redemptions' }).fill(first.code);
    await page
      .getByText(
        'No redemptions waiting for export match this search or filter; 1 exported redemption does. ' +
          'Exported redemptions are listed in Exported Vouchers.',
      )
      .waitFor();
    await page.getByRole('textbox', { name: 'Search redemptions' }).fill('');
    await hint.waitFor();

    await hint.getByRole('button', { name: 'Open Exported Vouchers' }).click();
    const tab = page.getByRole('tab', { name: 'Exported Vouchers', exact: true });
    expect(await tab.getAttribute('aria-selected')).toBe('true');
    await rowOf(page, first.code).waitFor();
    await rowOf(page, second.code).waitFor();
    expect(await describe('Export CSV')).toBe(
      'Export CSV and Export TXT export this list again: its redemptions stay here, Exported At set to now.',
    );
    expect(errors).toEqual([]);
    await context.close();
  });

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

  it('a "Login Failed" toast is gone once the next sign-in succeeds', async () => {
    const user = await createAdminUser(t(), { role: 'admin' });
    const { context, page, errors } = await newPage();
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(user.username);
    await page.getByLabel('Password').fill(`${user.password}x`);
    await page.getByRole('button', { name: 'Sign In' }).click();
    const failed = page.getByText('Login Failed', { exact: true });
    await failed.waitFor();

    // The pointer rests on the toast, which keeps it open (it pauses while hovered); the next sign-in is typed and
    // sent with Enter. The dashboard opens without it.
    await failed.hover();
    await page.getByLabel('Password').fill(user.password);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    expect(await failed.count()).toBe(0);
    await screenshot(page, 'console-guidance-signed-in-after-failure');
    // The browser logs the refused sign-in's 401; nothing else may go wrong.
    expect(errors.filter((e) => !/status of 401 /.test(e))).toEqual([]);
    await context.close();
  });
});
