import { mkdirSync } from 'fs';
import { join } from 'path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { connectChromium } from '../browser/browser';
import { startTestApp, type TestApp } from './app';
import type { TestAdmin } from './auth';

/**
 * What the admin console's browser suites share (test/browser/admin-accounts.browser-spec.ts,
 * test/browser/admin-products.browser-spec.ts): Debian's Chromium through playwright-core against the real app
 * (API + built web app) on a fresh PostgreSQL database; a fresh context and page per test. `t`, `context` and
 * `page` are set by the hooks `useAdminConsole()` registers.
 */
export const root = join(__dirname, '..', '..');
const results = join(root, 'test-results');
mkdirSync(results, { recursive: true });

export let t: TestApp;
let browser: Browser;
export let context: BrowserContext;
export let page: Page;

/** Registers the hooks: the app and Chromium for the file, a context and page for each test. */
export function useAdminConsole(): void {
  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true' });
    browser = await connectChromium();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  beforeEach(async () => {
    context = await browser.newContext({
      baseURL: t.baseUrl,
      viewport: { width: 1366, height: 900 },
      acceptDownloads: true,
    });
    page = await context.newPage();
  });

  afterEach(async () => {
    await context?.close();
  });
}

// Transitions finished first (tab indicator, dialog fade), so the picture shows the settled screen.
export const shot = (name: string) =>
  page.screenshot({ path: join(results, `admin-${name}.png`), fullPage: true, animations: 'disabled' });

export async function signIn(user: TestAdmin, password = user.password): Promise<void> {
  await page.goto('/admin/login');
  await page.getByLabel('Username').fill(user.username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign In' }).click();
  await page.waitForURL((url) => url.pathname === '/admin');
  await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
}

/** The docs/product.md §7.5 storage keys: adminToken, authToken, adminRefreshToken (evaluated in the page). */
export const storedTokens = () =>
  page.evaluate<Array<string | null>>(
    `['adminToken', 'authToken', 'adminRefreshToken'].map((key) => localStorage.getItem(key))`,
  );

export const tab = (name: string) => page.getByRole('tab', { name, exact: true });
export const toastTitled = (title: string) =>
  page.getByRole('region', { name: /notifications/i }).getByText(title, { exact: true });
