import { existsSync, mkdirSync } from 'fs';
import { join } from 'path';
import { chromium, type Browser, type BrowserContextOptions, type Page } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RESULTS = join(__dirname, '..', '..', 'test-results');

/** Debian's Chromium, headless, with nothing phoning home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--no-sandbox',
      '--headless',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** A fresh context (cookies, storage) and page; every page error fails the page's test through `errors`. */
export async function openPage(browser: Browser, baseURL: string, options: BrowserContextOptions = {}) {
  const context = await browser.newContext({ baseURL, viewport: { width: 1280, height: 900 }, ...options });
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  return { context, page, errors };
}

/**
 * Saves a full-page screenshot to test-results/{name}.png; `{ fullPage: false }` only the viewport. A full-page
 * capture lays the page out in a viewport as tall as the page and back: on a slow renderer Chromium records that
 * as a layout shift (of 0.94, in test/browser/success-pages.browser-spec.ts), so a test that counts shifts takes
 * the viewport only.
 */
export async function screenshot(page: Page, name: string, { fullPage = true } = {}): Promise<void> {
  if (!existsSync(RESULTS)) mkdirSync(RESULTS, { recursive: true });
  // Transitions (dialog fade-in, button colours) are finished first so the picture shows the settled page.
  await page.screenshot({ path: join(RESULTS, `${name}.png`), fullPage, animations: 'disabled' });
}
