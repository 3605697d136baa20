import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { connectChromium, openPage, screenshot } from './browser';

const COMPANY = 'Licence Desk Ltd';

/**
 * The success pages say nothing of success before the server has answered for the token
 * (docs/product.md §2.3): while `/api/success-token/…` is held back, the page shows "Verifying access..." between the
 * site's header and footer, and no heading, key, e-mail or download link of the result; then exactly one state.
 * A forged and an expired token go from there straight to "Access Denied".
 */
describe('success pages while the token is checked', () => {
  let t: TestApp;
  let browser: Browser;
  const tokens: Record<'windows' | 'mac' | 'expired', string> = { windows: '', mac: '', expired: '' };
  let key: string;
  let winEmail: string;
  let macEmail: string;

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true', SUPPORT_EMAIL: 'help@licences.test', COMPANY_NAME: COMPANY });
    browser = await connectChromium();
    const proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);

    const [winCode] = await addCodes(t.db, proPlus, [randomCode('HOLD')]);
    const hex = randomCode('').slice(1);
    key = `HOLD${hex.slice(0, 1)}-${hex.slice(1, 6)}-ABCDE-FGHIJ-KLMNO`;
    await addLicenseKey(t.db, proPlus, key);
    winEmail = `ann.${randomCode('w').toLowerCase()}@example.com`;
    tokens.windows = (
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: winCode, email: winEmail }))
        .expect(201)
    ).body.successToken;

    const [macCode, oldCode] = await addCodes(t.db, mac, [randomCode('HOLD'), randomCode('OLD')]);
    macEmail = `mia.${randomCode('m').toLowerCase()}@example.com`;
    tokens.mac = (
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: macCode, email: macEmail }))
        .expect(201)
    ).body.successToken;
    tokens.expired = (
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: oldCode, email: `old.${randomCode('o').toLowerCase()}@example.com` }))
        .expect(201)
    ).body.successToken;
    await t.db.query(
      `UPDATE success_tokens SET expires_at = now() - interval '1 minute'
        WHERE redemption_id = (SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1)`,
      [oldCode],
    );
  });

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** Holds every token check until `release()`; `asked` resolves once the page has asked. */
  async function holdTokenAnswer(page: Page) {
    let release!: () => void;
    let asked!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const askedPromise = new Promise<void>((resolve) => (asked = resolve));
    await page.route('**/api/success-token/**', async (route) => {
      asked();
      await held;
      await route.continue();
    });
    return { release, asked: askedPromise };
  }

  const cases = [
    {
      name: 'Windows, valid token',
      path: 'windows',
      token: () => tokens.windows,
      title: 'Your Office License',
      result: 'Download Ready',
      shows: () => [winEmail],
    },
    {
      name: 'Windows, forged token',
      path: 'windows',
      token: () => 'forged-token-0000',
      title: 'Your Office License',
      result: 'Access Denied',
      shows: () => ['Invalid or expired access token'],
    },
    {
      name: 'Mac, valid token',
      path: 'mac',
      token: () => tokens.mac,
      title: 'Your Office License for Mac',
      result: 'Redemption Successful!',
      shows: () => [macEmail],
    },
    {
      name: 'Mac, expired token',
      path: 'mac',
      token: () => tokens.expired,
      title: 'Your Office License for Mac',
      result: 'Access Denied',
      shows: () => ['Invalid or expired access token'],
    },
  ];

  it.each(cases)(
    '$name: only "Verifying access..." until the answer, then "$result"',
    async ({ path, token, title, result, shows }) => {
      // A phone's screen, as Lighthouse's mobile profile sizes it; every layout shift is recorded from the first paint
      // on. Not `isMobile`: Chromium's mobile emulation starts each page on a 980 px layout viewport and resizes it
      // to the viewport meta tag's width tens to hundreds of milliseconds later; a frame painted in between under load
      // would record a shift of the whole page that the emulation makes, not the page.
      const { context, page, errors } = await openPage(browser, t.baseUrl, {
        viewport: { width: 412, height: 823 },
        deviceScaleFactor: 1.75,
        hasTouch: true,
      });
      // Each shift with what moved (element, text, from and to), so that a failure says what moved.
      await page.addInitScript(() => {
        const shifts: object[] = ((globalThis as any).layoutShifts = []);
        const Observer = (globalThis as any).PerformanceObserver;
        const rect = (r: any) => r && [r.x, r.y, r.width, r.height].map(Math.round).join(',');
        new Observer((list: any) =>
          list.getEntries().forEach((entry: any) =>
            shifts.push({
              value: entry.value,
              at: Math.round(entry.startTime),
              moved: (entry.sources ?? []).map((x: any) => ({
                node: x.node ? `${x.node.nodeName} ${String(x.node.textContent ?? '').slice(0, 40)}` : null,
                from: rect(x.previousRect),
                to: rect(x.currentRect),
              })),
            }),
          ),
        ).observe({ type: 'layout-shift', buffered: true });
      });
      const hold = await holdTokenAnswer(page);
      await page.goto(`/success/${path}?token=${encodeURIComponent(token())}`, { waitUntil: 'commit' });

      // The app has taken the page over (it sets the title) and has asked for the token: it is waiting for the answer.
      await page.waitForFunction(
        (expected) => (globalThis as any).document.title === expected,
        `${title} | ${COMPANY}`,
      );
      await hold.asked;
      const main = page.getByRole('main');
      await main.getByRole('status').filter({ hasText: 'Verifying access...' }).waitFor();
      expect((await main.innerText()).trim()).toBe('Verifying access...');
      expect(await main.getByRole('link').count()).toBe(0);
      expect(await main.getByRole('button').count()).toBe(0);
      expect(await page.getByRole('banner').innerText()).toContain(COMPANY);
      expect(await page.getByRole('contentinfo').count()).toBe(1);
      // Nothing of any result in the document, shown or hidden: no success text, key, e-mail or download link.
      const html = await page.content();
      for (const text of [
        'Redemption Successful!',
        'Download Ready',
        'Processing Your License',
        'Download Now',
        'Your Product Key',
        'Installation packages',
        'Office Removal Tool',
        'Access Denied',
        key,
        winEmail,
        macEmail,
      ]) {
        expect(html).not.toContain(text);
      }
      expect(await page.locator('a[href*="download" i], a[target="_blank"]').count()).toBe(0);
      await screenshot(page, `success-${path}-verifying`, { fullPage: false });

      hold.release();
      await page.getByRole('heading', { level: 1, name: result }).waitFor();
      for (const text of shows()) await page.getByText(text).waitFor();
      expect(await page.getByText('Verifying access...').count()).toBe(0);
      // "Verifying access..." is a screen high: a result that replaces it moves nothing that was on screen.
      if (result !== 'Access Denied') {
        expect(await page.evaluate(() => (globalThis as any).layoutShifts as object[])).toEqual([]);
      }
      expect(errors.filter((e) => !/404 \(Not Found\)/.test(e))).toEqual([]);
      await context.close();
    },
  );
});
