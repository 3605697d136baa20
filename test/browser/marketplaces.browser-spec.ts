import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { createAdminUser } from '../helpers/auth';
import { randomCode, redeemBody } from '../helpers/factories';
import { signed, startMarketplace, type TestMarketplace } from '../helpers/marketplace';
import { eventually } from '../helpers/redemptions';
import { RECEIVERS_ON_LOOPBACK } from '../helpers/webhook-receiver';
import { expectNoAxeViolations } from './axe';
import { connectChromium, downloadedText, openPage, screenshot } from './browser';

/**
 * docs/product.md §24 in Chromium against the real API and a real marketplace server on loopback: an admin connects
 * the marketplace in Settings → Marketplaces and copies the secret shown once; the marketplace sends a code, a
 * customer redeems it, the card shows the report acked and the code's refund, and "Reconciliation" downloads the
 * day's file with the redemption and its report status.
 */
describe('marketplace connections in a real browser', () => {
  let t: TestApp;
  let browser: Browser;
  let marketplace: TestMarketplace;

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true', GEO_BLOCKED_COUNTRIES: '', ...RECEIVERS_ON_LOOPBACK });
    browser = await connectChromium();
    marketplace = await startMarketplace();
  });
  afterAll(async () => {
    await marketplace?.close();
    await browser?.close();
    await t?.close();
  });

  async function settings(page: Page) {
    await page.getByRole('tab', { name: 'Settings', exact: true }).click();
    return page.getByRole('region', { name: 'Marketplaces' });
  }

  it('connects, sees a code reported and refunded, and downloads the reconciliation', async () => {
    const productName = `Marketplace ${randomCode('P')} (Mac)`;
    await t.db.query(`INSERT INTO products (name, download_link) VALUES ($1, 'https://dl.example.com/m.pkg')`, [
      productName,
    ]);
    const { page } = await openPage(browser, t.baseUrl, { acceptDownloads: true });
    const admin = await createAdminUser(t, { role: 'admin' });
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill(admin.username);
    await page.getByLabel('Password').fill(admin.password);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();

    let card = await settings(page);
    const form = card.getByRole('form', { name: 'Connect marketplace' });
    await form.getByLabel('Name').fill('Partner');
    await form.getByLabel('Base URL').fill(marketplace.baseUrl);
    await form.getByLabel('Product').click();
    await page.getByRole('option', { name: productName }).click();
    await form.getByLabel('Marketplace reference').fill('SKU-BROWSER');
    await form.getByRole('button', { name: 'Connect marketplace' }).click();
    const dialog = page.getByRole('dialog', { name: 'Marketplace signing secret' });
    const secret = (await dialog.getByTestId('marketplace-secret').innerText()).trim();
    expect(secret).toMatch(/^mksec_/);
    marketplace.useSecret(secret);
    // axe (WCAG 2.1 AA) on the secret shown once, and below on the connection with its reconciliation.
    await expectNoAxeViolations(page);
    await screenshot(page, 'marketplaces-secret');
    await dialog.getByRole('button', { name: 'Done' }).click();
    const [{ id }] = await t.db.query(`SELECT id FROM marketplace_connections WHERE name = 'Partner'`);

    // The marketplace sends a code; a customer redeems it; the marketplace gets its report.
    const code = randomCode('MKB');
    const send = (event: object) => {
      const body = JSON.stringify(event);
      return t.http().post(`/api/marketplaces/${id}/events`).set(signed(secret, body)).send(body).expect(200);
    };
    await send({ id: 'evt-b1', type: 'voucher.created', externalRef: 'SKU-BROWSER', codes: [code] });
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }))
      .expect(201);
    await eventually(async () => marketplace.callsTo('/redemptions').length === 1, 15_000, 'the report');
    await send({ id: 'evt-b2', type: 'voucher.refunded', externalRef: 'SKU-BROWSER', codes: [code] });

    await page.reload();
    card = await settings(page);
    const connection = card.getByRole('article', { name: 'Marketplace Partner' });
    // The reports: the redemption's, and the refund the marketplace sent itself (recorded as settled).
    await expect(connection.getByTestId('marketplace-status').innerText()).resolves.toContain(
      'Codes received 1 · redeemed 1 · reports acked 2, pending 0, dead 0 · refunds applied 1',
    );
    await expectNoAxeViolations(page);
    await screenshot(page, 'marketplaces-card');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      connection.getByRole('button', { name: 'Reconciliation' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^marketplace-Partner-\d{4}-\d\d-\d\d\.csv$/);
    const [header, row] = (await downloadedText(download))
      .replace(/^\ufeff/, '')
      .trim()
      .split('\r\n');
    expect(header).toBe(
      'Redemption ID,Voucher Code,External Ref,Redeemed At,Report Status,Attempts,Acked At,Last Error,Refund Report',
    );
    const redemptionId = marketplace.callsTo('/redemptions')[0].json.redemptionId;
    expect(row).toMatch(new RegExp(`^${redemptionId},${code},SKU-BROWSER,[^,]+,acked,1,[^,]+,,acked$`));
  });
});
