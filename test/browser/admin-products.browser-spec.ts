import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { bearer, createAdminUser, issueToken } from '../helpers/auth';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { context, page, root, shot, signIn, t, tab, toastTitled, useAdminConsole } from '../helpers/admin-browser';
import { moveRedemptions } from '../helpers/counted-sql';
import { downloadedText } from './browser';

/**
 * Real-browser flows of the admin console's products (issue 6, engineer A's screens): uploading voucher codes, the
 * voucher codes modal and page, upload batches, the pool forecast, live counts and the dashboard, e-mail templates
 * and Clean System. test/browser/admin-accounts.browser-spec.ts has the account screens.
 */

useAdminConsole();

describe('admin console in a real browser', () => {
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
    const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM voucher_codes WHERE code = ANY($1)`, [
      fresh,
    ]);
    expect(count).toBe(3);
    await shot('products-upload');

    // A larger file over a slowed-down upload link: the progress bar moves before the report arrives.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: 256 * 1024,
    });
    const many = Array.from(
      { length: 40_000 },
      (_, i) => `BULK-${i.toString().padStart(6, '0')}-${fresh[0].slice(-6)}`,
    );
    await card.getByLabel(`Voucher file for ${PRODUCTS.homeBusinessWindows}`).setInputFiles({
      name: 'many.txt',
      mimeType: 'text/plain',
      buffer: Buffer.from(many.join('\n')),
    });
    await card.getByRole('button', { name: 'Upload Codes' }).click();
    const progress = card.getByRole('progressbar', { name: 'Upload progress' });
    await progress.waitFor();
    // The bar moves: some progress is shown before the upload completes (checked on every animation frame).
    const partway = await page.waitForFunction(
      (bar) => {
        const value = Number(bar?.getAttribute('aria-valuenow'));
        return value > 0 && value < 100 ? value : false;
      },
      await progress.elementHandle(),
      { polling: 'raf' },
    );
    const partial = (await partway.jsonValue()) as number;
    expect(partial).toBeGreaterThan(0);
    expect(partial).toBeLessThan(100);
    await shot('products-upload-progress');
    await cdp.send('Network.emulateNetworkConditions', {
      offline: false,
      latency: 0,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await card.getByText(`${many.length} inserted`, { exact: false }).waitFor({ timeout: 60_000 });
    await progress.waitFor({ state: 'detached' });

    // The voucher codes modal lists the new codes.
    await card.getByRole('button', { name: 'View Voucher Codes' }).click();
    const dialog = page.getByRole('dialog');
    const [{ total }] = await t.db.query(`SELECT count(*)::int AS total FROM voucher_codes WHERE product_id = $1`, [
      product,
    ]);
    await dialog
      .getByTestId('modal-total')
      .getByText(`${total.toLocaleString('en-US')} total`)
      .waitFor();
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
    const [{ count }] = await t.db.query(`SELECT count(*)::int AS count FROM voucher_codes WHERE code = $1`, [
      codes[0],
    ]);
    expect(count).toBe(0);

    // Export Unredeemed downloads the server's CSV under its filename.
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Export Unredeemed' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^unredeemed-vouchers-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = await downloadedText(download);
    expect(csv).toContain(codes[1]);
    expect(csv).not.toContain(codes[0]);
    await toastTitled('Export Successful').waitFor();

    await page.goto('/admin/voucher-codes/not-a-product');
    await page.getByText('Invalid product ID').waitFor();
  });

  it('uploads a file, sees its batch with live counts on the voucher codes page and downloads its reconciliation CSV', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const name = `Batch product ${randomCode('B')}`;
    const product = (
      await t
        .http()
        .post('/api/products')
        .set(bearer((await issueToken(t, admin.id)).token))
        .send({ name, downloadLink: 'https://dl.example.com/b' })
        .expect(201)
    ).body.id as string;
    const codes = [randomCode('BAT'), randomCode('BAT'), randomCode('BAT')].sort();

    await signIn(admin);
    const card = page.getByRole('region', { name });
    await card.getByLabel(`Voucher file for ${name}`).setInputFiles({
      name: 'marketplace-batch.csv',
      mimeType: 'text/csv',
      buffer: Buffer.from(['code', ...codes, 'bad code!'].join('\n')),
    });
    await card.getByRole('button', { name: 'Upload Codes' }).click();
    await card.getByTestId('upload-report').waitFor();
    // A customer redeems one of them: the batch's counts say so.
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: codes[1] }))
      .expect(201);

    await page.goto(`/admin/voucher-codes/${product}`);
    const batches = page.getByRole('table', { name: 'Batches' });
    const row = batches
      .getByRole('row')
      .filter({ has: page.getByRole('rowheader', { name: /^marketplace-batch\.csv/ }) });
    await row.waitFor();
    expect(await row.getByRole('cell').allInnerTexts()).toEqual([
      admin.username,
      expect.any(String),
      '3',
      '1',
      '2',
      '0',
      '0',
      '',
    ]);
    expect(await row.getByRole('rowheader').innerText()).toContain('3 added, 1 invalid line');
    await shot('voucher-codes-batches');

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      row.getByRole('button', { name: 'Download the reconciliation CSV of marketplace-batch.csv' }).click(),
    ]);
    expect(download.suggestedFilename()).toMatch(/^batch-\d{4}-\d{2}-\d{2}\.csv$/);
    const lines = (await downloadedText(download))
      .replace(/^\uFEFF/, '')
      .trimEnd()
      .split('\r\n');
    expect(lines[0]).toBe('Voucher Code,Status,Redeemed At,Exported At,Refunded At');
    expect(lines.slice(1).map((l) => l.split(',').slice(0, 2))).toEqual([
      [codes[0], 'Available'],
      [codes[1], 'Redeemed'],
      [codes[2], 'Available'],
    ]);
    await toastTitled('Export Successful').waitFor();
  });

  it('shows the days of keys left on a licence-managed product card (the pool forecast)', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const product = await productId(t.db, PRODUCTS.homeBusinessWindows);
    await addLicenseKey(t.db, product, randomCode('FORECAST'), { maxActivations: 40 });
    for (const code of await addCodes(t.db, product, [randomCode('FC'), randomCode('FC')])) {
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
    }
    const { token } = await issueToken(t, admin.id);
    const forecasts = (await t.http().get('/api/license-pool/forecast').set(bearer(token)).expect(200)).body;
    const forecast = forecasts.find((f: { productId: string }) => f.productId === product);
    expect(forecast.daysLeft).toEqual(expect.any(Number));

    await signIn(admin);
    const line = page.getByRole('region', { name: PRODUCTS.homeBusinessWindows }).getByTestId('pool-forecast');
    await line.filter({ hasText: `≈ ${forecast.daysLeft.toLocaleString('en-US')} days of keys left` }).waitFor();
    expect(await line.innerText()).toContain(`${forecast.availableActivations} activations available in the key pool`);
    // The Mac product takes no keys: no forecast.
    expect(
      await page.getByRole('region', { name: PRODUCTS.homeBusinessMac }).getByTestId('pool-forecast').count(),
    ).toBe(0);
  });

  it("shows another admin's change live: the Data Updated notice and the new counts without a reload", async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    const other = await issueToken(t, (await createAdminUser(t, { role: 'operator' })).id);
    const product = await productId(t.db, PRODUCTS.proPlusWindows);
    const codes = await addCodes(t.db, product, [randomCode('RT'), randomCode('RT'), randomCode('RT')]);
    // Redemptions spread over the last days give the chart something to show.
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    const redeemed = await addCodes(
      t.db,
      mac,
      Array.from({ length: 9 }, () => randomCode('CHART')),
    );
    for (const [i, code] of redeemed.entries()) {
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
      await moveRedemptions(
        t.db,
        `now() - make_interval(days => $2)`,
        `r.voucher_code_id = (SELECT id FROM voucher_codes WHERE code = $1)`,
        [code, [0, 0, 1, 1, 1, 2, 4, 5, 5][i]],
      );
    }

    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.proPlusWindows });
    const unredeemed = card.getByTestId('count-unredeemed');
    const before = Number((await unredeemed.innerText()).replace(/,/g, ''));
    const [{ count }] = await t.db.query(
      `SELECT count(*)::int AS count FROM voucher_codes WHERE product_id = $1 AND NOT is_redeemed`,
      [product],
    );
    expect(before).toBe(count);

    const [{ id }] = await t.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [codes[0]]);
    await t.http().delete(`/api/voucher-codes/${id}`).set(bearer(other.token)).expect(200);
    await page.getByRole('status').getByText('Data Updated').waitFor();
    // Products are not polled: only the real-time event can bring the new count without a reload.
    await unredeemed.filter({ hasText: new RegExp(`^${(before - 1).toLocaleString('en-US')}$`) }).waitFor();
    // The notice goes away by itself (after 3 s; its timing is DataUpdatedNotice's unit test).
    await page.getByRole('status').getByText('Data Updated').waitFor({ state: 'detached' });

    await page.getByRole('combobox', { name: 'Time Period' }).click();
    await page.getByRole('option', { name: 'Last 7 Days' }).click();
    await page.getByRole('img', { name: /^Daily redemptions: \d+ over 7 days$/ }).waitFor();
    await page
      .getByTestId('stat-Total Redemptions')
      .filter({ hasText: /^([9]|[1-9]\d+)$/ })
      .waitFor();
    await page.mouse.move(0, 0);
    await shot('dashboard-live');
    if (process.env.UPDATE_DOCS_SCREENSHOTS) {
      await page.screenshot({
        path: join(root, 'docs', 'images', 'dashboard.png'),
        fullPage: true,
        animations: 'disabled',
      });
    }
  });

  it('edits an e-mail template with a live preview, sends a test e-mail and saves', async () => {
    const admin = await createAdminUser(t, { role: 'admin' });
    await signIn(admin);
    const card = page.getByRole('region', { name: PRODUCTS.homeBusinessWindows });
    await card.getByRole('button', { name: 'Email Template' }).click();
    const dialog = page.getByRole('dialog', { name: `Email Template - ${PRODUCTS.homeBusinessWindows}` });
    await dialog.getByLabel('Email Subject').fill('Order {{voucher_code}} is ready');
    await dialog
      .getByLabel('Email Template')
      .fill('<h1>Hello {{customer_name}}</h1><p>Key: {{ license_key }}</p><a href="{{download_link}}">Download</a>');
    await dialog.getByTestId('preview-subject').getByText('Order SAMPLE-VOUCHER-1234 is ready').waitFor();
    const preview = page.frameLocator('iframe[title="Email preview"]');
    await preview.getByRole('heading', { name: 'Hello John Doe' }).waitFor();
    await preview.getByText('Key: XXXXX-XXXXX-XXXXX-XXXXX-XXXXX').waitFor();
    await shot('email-template');

    // Test e-mails go to staff addresses only (docs/product.md §18.6): a colleague's account address.
    const qa = await createAdminUser(t, { role: 'operator', username: 'qa_browser' });
    const qaEmail = `${qa.username}@example.com`;
    await dialog.getByLabel('Send test to').fill(qaEmail);
    await dialog.getByRole('button', { name: 'Send Test Email' }).click();
    await page.getByText(`Test email sent to ${qaEmail}`).waitFor();
    const mails = readdirSync(join(t.dataDir, 'mail')).map((f) => readFileSync(join(t.dataDir, 'mail', f), 'utf8'));
    expect(
      mails.some((m) => m.includes(`To: ${qaEmail}`) && m.includes('[TEST] Order SAMPLE-VOUCHER-1234 is ready')),
    ).toBe(true);

    await dialog.getByRole('button', { name: 'Save Template' }).click();
    await toastTitled('Template Updated').waitFor();
    const [row] = await t.db.query(`SELECT email_subject, email_template FROM products WHERE name = $1`, [
      PRODUCTS.homeBusinessWindows,
    ]);
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
    // The total as the dashboard shows it once loaded (earlier tests may have left redemptions).
    const total = page.getByTestId('stat-Total Redemptions');
    await total.filter({ hasText: /^\d[\d,]*$/ }).waitFor();
    const before = Number((await total.innerText()).replace(/,/g, ''));

    // A customer redeems in a second page; Mac products need no key, the redemption is immediate.
    const customer = await context.newPage();
    const res = await customer.request.post('/api/redeem-voucher', { data: redeemBody({ voucherCode: code }) });
    expect(res.status()).toBe(201);
    await customer.close();
    // Redemptions emit through the real-time path; the stats poll every 10 s picks the change up regardless.
    await total.filter({ hasText: new RegExp(`^${(before + 1).toLocaleString('en-US')}$`) }).waitFor();

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
});
