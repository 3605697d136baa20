import type { Browser, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app';
import { bearer, tokenFor } from '../helpers/auth';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody } from '../helpers/factories';
import { letters, licenceCentreClient } from '../helpers/licence-centre';
import { startSmtpServer, type TestSmtpServer } from '../helpers/smtp';
import { connectChromium, openPage, screenshot } from './browser';

/** The narrowest phone screen in common use (CSS pixels). */
const WIDTH = 375;
/** The Mac product's licence package (docs/product.md §12.7): the licence centre links it. */
const PACKAGE = 'https://downloads.example.com/mac/office-2024-home-business-licence-activation-package.pkg';

/**
 * What is wrong with the page's layout at its window's width, run in the page: the document wider than the screen,
 * an element whose right edge is beyond it, and text cut by its box (`text-overflow: ellipsis` or a hidden overflow
 * whose content is wider than the box). Elements not drawn (no box, `visibility` not visible) and screen-reader-only
 * ones (a box of 1 px or less) are not looked at; text is what `innerText` renders.
 */
function layoutProblems(): string[] {
  const doc = (globalThis as any).document;
  const width: number = (globalThis as any).innerWidth;
  const problems: string[] = [];
  if (doc.documentElement.scrollWidth > width) {
    problems.push(`the document is ${doc.documentElement.scrollWidth}px wide on a ${width}px screen`);
  }
  const name = (el: any) => {
    const text = String(el.innerText ?? '')
      .trim()
      .replace(/\s+/g, ' ')
      .slice(0, 50);
    const classes = typeof el.className === 'string' ? el.className.trim().split(/\s+/).slice(0, 2).join('.') : '';
    return `<${el.tagName.toLowerCase()}${classes ? ` .${classes}` : ''}> "${text}"`;
  };
  for (const el of Array.from(doc.body.querySelectorAll('*')) as any[]) {
    const style = (globalThis as any).getComputedStyle(el);
    if (style.display === 'none' || style.visibility !== 'visible') continue;
    const box = el.getBoundingClientRect();
    if (box.width <= 1 || box.height <= 1) continue;
    if (box.right > width + 0.5) problems.push(`${name(el)} ends at ${Math.round(box.right)}px`);
    const clips = style.textOverflow === 'ellipsis' || style.overflowX === 'hidden' || style.overflowX === 'clip';
    if (clips && String(el.innerText ?? '').trim() && el.scrollWidth > el.clientWidth + 1) {
      problems.push(`${name(el)} is cut: ${el.scrollWidth}px of content in ${el.clientWidth}px`);
    }
  }
  return problems;
}

/**
 * Issue 54 item 2: every public page at 375 px wide, in Chromium against the real API, shows everything inside the
 * screen and cuts no text (docs/product.md §2.8). The success pages and the licence centre show real redemptions.
 */
describe('public pages on a 375 px screen', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let smtp: TestSmtpServer;
  let browser: Browser;
  const client = licenceCentreClient(
    () => t,
    () => smtp,
  );
  const tokens: Record<'windows' | 'mac', string> = { windows: '', mac: '' };
  let centreToken = '';

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      SERVE_FRONTEND: 'true',
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      PUBLIC_URL: 'https://licences.example.com',
    });
    browser = await connectChromium();
    const email = `narrow.${letters()}@example.com`;
    const windows = await productId(t.db, PRODUCTS.proPlusWindows);
    const mac = await productId(t.db, PRODUCTS.homeBusinessMac);
    await t
      .http()
      .put(`/api/products/${mac}`)
      .set(bearer(await tokenFor(t, 'admin')))
      .send({ activationLink: PACKAGE })
      .expect(200);
    await addLicenseKey(t.db, windows, `NARROW-${randomCode('').slice(1, 6)}-ABCDE-FGHIJ-KLMNO`, {
      downloadLink: 'https://downloads.example.com/office2024-professional-plus-64-bit-english.exe',
    });
    for (const [kind, product] of [
      ['windows', windows],
      ['mac', mac],
    ] as const) {
      const [code] = await addCodes(t.db, product, [randomCode('NARROW')]);
      const res = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email }))
        .expect(201);
      tokens[kind] = res.body.successToken;
    }
    await client.askLink(email).expect(202);
    centreToken = (await client.linkFromMail(email, 1)).token;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  /** Each public page (docs/product.md §2.1, §21.4) and what shows that it has been drawn. */
  const pages: Array<{ name: string; path: () => string; ready: (page: Page) => Promise<unknown> }> = [
    { name: 'redeem', path: () => '/', ready: (page) => page.locator('form[data-ready]').waitFor() },
    {
      name: 'Windows success',
      path: () => `/success/windows?token=${encodeURIComponent(tokens.windows)}`,
      ready: (page) => page.getByRole('heading', { name: 'Download Ready' }).waitFor(),
    },
    {
      name: 'Mac success',
      path: () => `/success/mac?token=${encodeURIComponent(tokens.mac)}`,
      ready: (page) => page.getByRole('heading', { name: 'Office Removal Tool' }).waitFor(),
    },
    {
      name: 'my licences',
      path: () => '/my-licences',
      ready: (page) => page.getByRole('button', { name: /sign-in link/i }).waitFor(),
    },
    {
      name: 'my licences, signed in',
      path: () => `/my-licences?token=${encodeURIComponent(centreToken)}`,
      ready: async (page) => {
        const activation = page.getByRole('link', { name: 'License Activation' });
        await activation.waitFor();
        expect(await activation.getAttribute('href')).toBe(PACKAGE);
      },
    },
    {
      name: 'geo blocked',
      path: () => '/geo-blocked',
      ready: (page) => page.getByText('Error Code: GEO_BLOCKED').waitFor(),
    },
    {
      name: '404',
      path: () => `/no-such-page-${randomCode('').slice(1, 6).toLowerCase()}`,
      ready: (page) => page.getByRole('heading', { name: '404 Page Not Found' }).waitFor(),
    },
    {
      name: 'privacy',
      path: () => '/privacy-policy',
      ready: (page) => page.getByRole('heading', { level: 1, name: /Privacy Policy/ }).waitFor(),
    },
    {
      name: 'terms',
      path: () => '/terms-conditions',
      ready: (page) => page.getByRole('heading', { level: 1, name: /Terms/ }).waitFor(),
    },
  ];

  it.each(pages)('$name: nothing wider than the screen, no text cut', async ({ name, path, ready }) => {
    const { context, page, errors } = await openPage(browser, t.baseUrl, {
      viewport: { width: WIDTH, height: 812 },
      deviceScaleFactor: 2,
      hasTouch: true,
    });
    await page.goto(path());
    await ready(page);
    // Web fonts change text widths: measured once they are in.
    await page.evaluate(() => (globalThis as any).document.fonts.ready);
    expect(await page.evaluate(() => (globalThis as any).innerWidth)).toBe(WIDTH);
    const problems = await page.evaluate(layoutProblems);
    await screenshot(page, `narrow-${name.replace(/\W+/g, '-')}`);
    expect(problems).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
