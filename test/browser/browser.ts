import { randomUUID } from 'crypto';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import {
  chromium,
  type Browser,
  type BrowserContextOptions,
  type BrowserServer,
  type Download,
  type Page,
} from 'playwright-core';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const RESULTS = join(__dirname, '..', '..', 'test-results');
/** The workers' browsers' addresses (JSON list), from the global setup to the workers through the environment. */
const ENDPOINTS = 'OVR_TEST_CHROMIUM';

declare global {
  var __workerBrowsers: BrowserServer[] | undefined;
}

/**
 * One Chromium (Debian's, headless, nothing phoning home) per Jest worker, launched once for the run by the browser
 * project's global setup and closed by the global teardown: a file connects to its worker's (connectChromium)
 * instead of launching and closing a browser of its own. The run owns them, not the workers: Jest ends a worker by
 * letting it exit once nothing keeps it alive, and a worker's own Chromium would.
 */
export async function launchWorkerBrowsers(workers: number): Promise<void> {
  if (globalThis.__workerBrowsers) return;
  const servers = await Promise.all(
    Array.from({ length: Math.max(1, workers) }, () =>
      chromium.launchServer({
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
      }),
    ),
  );
  globalThis.__workerBrowsers = servers;
  process.env[ENDPOINTS] = JSON.stringify(servers.map((server) => server.wsEndpoint()));
}

export async function closeWorkerBrowsers(): Promise<void> {
  const servers = globalThis.__workerBrowsers ?? [];
  globalThis.__workerBrowsers = undefined;
  delete process.env[ENDPOINTS];
  await Promise.all(servers.map((server) => server.close()));
}

/**
 * The file's connection to its worker's Chromium (launchWorkerBrowsers). Its contexts are the file's own (cookies,
 * storage, cache); `close()` closes them and disconnects, and the browser stays for the worker's next file.
 */
export function connectChromium(): Promise<Browser> {
  const endpoints: string[] = JSON.parse(process.env[ENDPOINTS] ?? '[]');
  const endpoint = endpoints[(Number(process.env.JEST_WORKER_ID ?? '1') - 1) % Math.max(1, endpoints.length)];
  if (!endpoint) throw new Error("No worker's Chromium: the browser project's global setup launches them");
  return chromium.connect(endpoint, { timeout: 30_000 });
}

/** A download's text. The browser runs in another process, so the file is saved here first (`path()` is not). */
export async function downloadedText(download: Download): Promise<string> {
  const file = join(tmpdir(), `ovr-download-${randomUUID()}`);
  try {
    await download.saveAs(file);
    return readFileSync(file, 'utf8');
  } finally {
    rmSync(file, { force: true });
  }
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
