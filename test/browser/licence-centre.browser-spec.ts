import { execFile } from 'child_process';
import { promisify } from 'util';
import type { Browser, Page } from 'playwright-core';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../helpers/app';
import { bearer, tokenFor } from '../helpers/auth';
import { MISMATCHES_SQL } from '../helpers/counters';
import { addCodes, addLicenseKey, licenseManagedProduct, productId, PRODUCTS, randomCode } from '../helpers/factories';
import { letters, licenceCentreClient } from '../helpers/licence-centre';
import { eventually } from '../helpers/redemptions';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { connectChromium, downloadedText, openPage, screenshot } from './browser';

const run = promisify(execFile);

/**
 * Issue 28's check, in Chromium against the real API, database and an SMTP server: a customer redeems two codes with
 * one address on the redeem page, asks for a sign-in link on /my-licences, opens the link from the delivered
 * e-mail, sees both licences, downloads their data and erases it; afterwards a database dump holds no trace of them
 * while the redemption counts and the statistics are what they were.
 */
describe('licence centre in a real browser', () => {
  jest.setTimeout(180_000);
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      SERVE_FRONTEND: 'true',
      SMTP_URL: smtp.url,
      GEO_BLOCKED_COUNTRIES: '',
      // Where the e-mail's links point; the test opens the link's path and query on the app it started.
      PUBLIC_URL: 'https://licences.example.com',
    });
    browser = await connectChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  const messagesTo = (email: string) => smtp.messages.filter((m) => JSON.stringify(m.to ?? '').includes(email));

  async function redeemOnPage(
    page: Page,
    code: string,
    person: { firstName: string; lastName: string; email: string },
  ) {
    await page.goto('/');
    await page.locator('form[data-ready]').waitFor();
    await page.getByRole('textbox', { name: 'First Name' }).fill(person.firstName);
    await page.getByRole('textbox', { name: 'Last Name' }).fill(person.lastName);
    await page.getByRole('textbox', { name: 'Email Address' }).fill(person.email);
    await page.getByRole('textbox', { name: 'Phone Number' }).fill('+1 302 555 0142');
    await page.getByRole('textbox', { name: 'Voucher Code' }).fill(code);
    await page.getByRole('checkbox', { name: /Privacy Policy/ }).check();
    await page.getByRole('button', { name: 'Redeem Voucher' }).click();
    await page.waitForURL(/\/success\/(windows|mac)\?token=/);
  }

  it('redeem twice, sign in by the e-mailed link, see both keys, download the data, erase it: no trace left', async () => {
    const windows = await licenseManagedProduct(t.db, `Centre Browser ${randomCode('P')}`);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const key = `CTRB-${randomCode('').slice(1)}-ABCDE`;
    await addLicenseKey(t.db, windows, key);
    const [winCode] = await addCodes(t.db, windows, [randomCode('LCW')]);
    const [macCode] = await addCodes(t.db, mac, [randomCode('LCM')]);
    const person = {
      firstName: `Imogen${letters()}`,
      lastName: `Wetherby${letters()}`,
      email: `imogen.${letters()}@example.com`,
    };

    const { context, page, errors } = await openPage(browser, t.baseUrl);
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    await redeemOnPage(page, winCode, person);
    await page.getByRole('heading', { name: 'Download Ready' }).waitFor();
    await redeemOnPage(page, macCode, person);
    await page.getByRole('heading', { name: 'Redemption Successful!' }).waitFor();
    await eventually(async () => messagesTo(person.email).length >= 2, 20_000, 'both order e-mails');

    const admin = bearer(await tokenFor(t, 'admin'));
    const figures = async () => ({
      stats: (await t.http().get('/api/stats/alltime').set(admin).expect(200)).body,
      products: (await t.http().get('/api/products').set(admin).expect(200)).body,
      redemptions: (await t.db.query(`SELECT count(*)::int AS n FROM redemptions`))[0].n,
    });
    const before = await figures();

    // From the success page's help panel to the licence centre; ask for a link.
    await page.getByRole('link', { name: 'My licences' }).first().click();
    await page.waitForURL(/\/my-licences$/);
    await page.getByRole('heading', { level: 1, name: 'My Licences' }).waitFor();
    await page.getByRole('textbox', { name: 'E-mail address' }).fill(person.email.toUpperCase());
    await page.getByRole('button', { name: 'Send me a sign-in link' }).click();
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();
    await page.getByText('If licences were issued to this e-mail address, a sign-in link is on its way.').waitFor();
    await screenshot(page, 'licence-centre-check-inbox');

    // The link, read from the e-mail the SMTP server received.
    const mail = await eventually(
      async () => messagesTo(person.email).find((m) => m.subject?.startsWith('Sign in')),
      20_000,
      'sign-in e-mail',
    );
    const link = new URL(/https:\/\/licences\.example\.com\/my-licences\?token=[\w-]+/.exec(mail.text ?? '')![0]);
    await page.goto(`${link.pathname}${link.search}`);
    await page.getByText(`Signed in as ${person.email}`).waitFor();
    // The spent token leaves the address bar.
    await page.waitForURL(/\/my-licences$/);

    // Both licences: the Windows key in clear with its copy button, the Mac package set.
    await page.getByRole('heading', { level: 3, name: /Centre Browser/ }).waitFor();
    await page.getByRole('heading', { level: 3, name: PRODUCTS.homeBusinessMac }).waitFor();
    await page.getByText(key, { exact: true }).waitFor();
    await page.getByText(winCode).waitFor();
    await page.getByText(macCode).waitFor();
    await page
      .getByRole('list', { name: `Installation packages of ${PRODUCTS.homeBusinessMac}` })
      .getByRole('link', { name: 'Office 2024 Installer' })
      .waitFor();
    await page.getByRole('button', { name: /Copy the key of Centre Browser/ }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);
    await screenshot(page, 'licence-centre-licences');

    // Download my data: a JSON file with both redemptions as given.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download my data' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^my-data-\d{4}-\d{2}-\d{2}\.json$/);
    const data = JSON.parse(await downloadedText(download));
    expect(data.customer.email).toBe(person.email);
    expect(data.redemptions.map((r: { voucherCode: string }) => r.voucherCode).sort()).toEqual(
      [winCode, macCode].sort(),
    );
    expect(data.redemptions[0]).toMatchObject({ firstName: person.firstName, lastName: person.lastName });

    // Delete my personal data, confirmed in the dialog.
    await page.getByRole('button', { name: 'Delete my personal data' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete your personal data?' });
    await dialog.waitFor();
    await screenshot(page, 'licence-centre-erase-confirm');
    await dialog.getByRole('button', { name: 'Delete my data' }).click();
    await page
      .getByText('Your personal data has been deleted. A confirmation was sent to your e-mail address.')
      .waitFor();
    await page.getByRole('button', { name: 'Send me a sign-in link' }).waitFor();
    expect(
      messagesTo(person.email)
        .map((m) => m.subject)
        .at(-1),
    ).toMatch(/^Your personal data has been deleted/);
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
    expect(errors.filter((e) => !/status of 40\d/.test(e))).toEqual([]);
    await context.close();

    // The staff console's view: "Erased on <date>", the code and key kept.
    const list = (await t.http().get('/api/redemptions').query({ search: winCode }).set(admin).expect(200)).body
      .redemptions;
    expect(list).toEqual([
      expect.objectContaining({
        erasedAt: expect.any(String),
        customer: expect.objectContaining({ email: '', firstName: '' }),
      }),
    ]);

    // Counts and statistics unchanged; no trace of the customer in a dump of the database.
    expect(await figures()).toEqual(before);
    expect(await t.db.query(MISMATCHES_SQL)).toEqual([]);
    const dump = (await run('pg_dump', ['--no-owner', '--data-only', t.database.url], { maxBuffer: 256 * 1024 * 1024 }))
      .stdout;
    expect(dump).toContain(winCode);
    for (const trace of [person.email, person.firstName, person.lastName, '+1 302 555 0142']) {
      expect([trace, dump.includes(trace)]).toEqual([trace, false]);
    }

    // The staff console in the browser: "Erased on <date>" in the list, and Settings → Privacy requests.
    const staff = await openPage(browser, t.baseUrl);
    await staff.page.goto('/admin/login');
    await staff.page.getByLabel('Username').fill('admin');
    await staff.page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await staff.page.getByRole('button', { name: 'Sign In' }).click();
    await staff.page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    await staff.page.getByRole('tab', { name: 'Recent Redemptions', exact: true }).click();
    await staff.page
      .getByText(/^Erased on /)
      .first()
      .waitFor();
    await staff.page.getByRole('tab', { name: 'Settings', exact: true }).click();
    const card = staff.page.getByRole('region', { name: 'Privacy requests' });
    await card.getByText('Personal data erased').waitFor();
    await card.getByText('Data downloaded').waitFor();
    // At least this customer's link: the spent-link test of this file, run first in a shuffled order, sent one too.
    await card.getByText('Sign-in link sent').first().waitFor();
    await screenshot(staff.page, 'licence-centre-privacy-requests');
    await staff.context.close();
  });

  it('a spent link shows the expiry message and the request form', async () => {
    // A real link, from the e-mail, used once already (a session was opened with it).
    const customer = licenceCentreClient(
      () => t,
      () => smtp,
    );
    const email = `spent.${letters()}@example.com`;
    await customer.redeem(await productId(t.db, PRODUCTS.homeBusinessMac), { email });
    await customer.askLink(email).expect(202);
    const { token } = await customer.linkFromMail(email, 1);
    await customer.session(token).expect(200);

    const { context, page } = await openPage(browser, t.baseUrl);
    await page.goto(`/my-licences?token=${token}`);
    await page.getByText('This sign-in link has expired. Please request a new one.').waitFor();
    await page.getByRole('button', { name: 'Send me a sign-in link' }).waitFor();
    await page.waitForURL(/\/my-licences$/);
    await context.close();
  });
});
