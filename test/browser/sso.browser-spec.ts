import { mkdirSync } from 'fs';
import { join } from 'path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, TEST_ADMIN_PASSWORD, type TestApp } from '../helpers/app';
import { signInThrough, startOidcProvider, TEST_CLIENT, type TestOidcProvider } from '../helpers/oidc-provider';
import { connectChromium } from './browser';

const results = join(__dirname, '..', '..', 'test-results');
mkdirSync(results, { recursive: true });

/**
 * Single sign-on as a person does it: the console's "Sign in with Contoso", the provider's own login form (a real
 * OpenID provider in this process), and back to the console with the role the provider's group gives. The provider
 * is `localhost`, the app `127.0.0.1`: another site, so its redirect back is a cross-site navigation, as with a real
 * provider, and the hand-off's SameSite=Strict cookie is set in a response to one.
 */
/** The provider on `localhost` and the app on 127.0.0.1 (two sites), the provider trusting the app's callback. */
async function startSsoApp(): Promise<{ idp: TestOidcProvider; t: TestApp }> {
  const idp = await startOidcProvider({ host: 'localhost' });
  const t = await startTestApp({
    SERVE_FRONTEND: 'true',
    OIDC_ISSUER: idp.issuer,
    OIDC_CLIENT_ID: TEST_CLIENT.id,
    OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
    OIDC_DISPLAY_NAME: 'Contoso',
    OIDC_ROLES: 'admin:ovr-admins,operator:ovr-operators',
  });
  idp.trust(t.baseUrl);
  return { idp, t };
}

describe('Staff single sign-on in the browser', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    ({ idp, t } = await startSsoApp());
    browser = await connectChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ baseURL: t.baseUrl, viewport: { width: 1366, height: 900 } });
    page = await context.newPage();
  });
  afterEach(() => context?.close());

  /** From the console's login page through the provider's form as `sub`. */
  async function signInAtProvider(sub: string) {
    await page.goto('/admin/login');
    const button = page.getByRole('link', { name: 'Sign in with Contoso' });
    await button.waitFor();
    await page.screenshot({ path: join(results, 'sso-login.png'), animations: 'disabled' });
    await button.click();
    await providerForm(sub);
  }

  /** The provider's own login form, filled in as `sub`. */
  async function providerForm(sub: string) {
    await page.waitForURL((url) => url.origin === idp.issuer);
    await page.locator('input[name="login"]').fill(sub);
    await page.locator('input[name="password"]').fill('any password');
    await page.getByRole('button', { name: 'Sign-in' }).click();
  }

  it('signs an operator in through the provider’s form and shows only what an operator sees', async () => {
    idp.identities.set('olivia', {
      sub: 'olivia',
      preferred_username: 'olivia',
      email: 'olivia@contoso.example',
      groups: ['ovr-operators'],
    });
    await signInAtProvider('olivia');
    await page.waitForURL((url) => url.origin === t.baseUrl && url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    // The handed-over token left the address bar; the console holds its own tokens.
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.evaluate(`localStorage.getItem('adminRefreshToken')`)).toEqual(expect.any(String));

    await page.getByRole('tab', { name: 'Exported Vouchers', exact: true }).waitFor();
    expect(await page.getByRole('tab', { name: 'Settings', exact: true }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Reset Operator' }).count()).toBe(0);
    await page.screenshot({
      path: join(results, 'sso-operator-dashboard.png'),
      fullPage: true,
      animations: 'disabled',
    });
    const me = await page.evaluate(
      `fetch('/api/admin/me', { headers: { Authorization: 'Bearer ' + localStorage.getItem('adminToken') } }).then((r) => r.json())`,
    );
    expect(me).toMatchObject({ username: 'olivia', role: 'operator' });
  });

  it('signs an admin in, who makes an API token in Settings: shown once, copied, working, then revoked', async () => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
    idp.identities.set('ada', {
      sub: 'ada',
      preferred_username: 'ada',
      email: 'ada@contoso.example',
      groups: ['ovr-admins'],
    });
    await signInAtProvider('ada');
    await page.waitForURL((url) => url.origin === t.baseUrl && url.pathname === '/admin');
    await page.getByRole('tab', { name: 'Settings', exact: true }).click();
    const card = page.getByRole('region', { name: 'API tokens' });
    await card.getByRole('button', { name: 'Create token' }).click();
    const dialog = page.getByRole('dialog', { name: 'Create API token' });
    await dialog.getByLabel('Name').fill('Shop integration');
    await dialog.getByLabel('dashboard.view').check();
    await dialog.getByRole('button', { name: 'Create token' }).click();
    const created = page.getByRole('dialog', { name: 'API token created' });
    const token = (await created.getByTestId('api-token-value').textContent())!;
    expect(token).toMatch(/^ovr_[\w-]{43}$/);
    await created.getByRole('button', { name: 'Copy token' }).click();
    expect(await page.evaluate('navigator.clipboard.readText()')).toBe(token);
    await page.screenshot({ path: join(results, 'sso-api-token-created.png'), animations: 'disabled' });
    await created.getByRole('button', { name: 'Done' }).click();

    const works = () =>
      fetch(`${t.baseUrl}/api/products`, { headers: { Authorization: `Bearer ${token}` } }).then((r) => r.status);
    expect(await works()).toBe(200);
    const row = card.getByRole('article', { name: 'API token Shop integration' });
    await row.getByText(/by ada/).waitFor();
    await row.getByRole('button', { name: 'Delete API token Shop integration' }).click();
    await page.getByRole('dialog', { name: 'Revoke API token' }).getByRole('button', { name: 'Revoke' }).click();
    // The toast follows the server's answer; the row alone is no sign (the open dialog hides it from the role tree).
    await page
      .getByRole('region', { name: /notifications/i })
      .getByText('API token revoked', { exact: true })
      .waitFor();
    await page.getByRole('dialog', { name: 'Revoke API token' }).waitFor({ state: 'detached' });
    await row.waitFor({ state: 'detached' });
    expect(await works()).toBe(401);
  });

  it('tells a person whose groups map to no role why they cannot sign in', async () => {
    idp.identities.set('mallory', { sub: 'mallory', preferred_username: 'mallory', groups: ['marketing'] });
    await signInAtProvider('mallory');
    await page.waitForURL((url) => url.origin === t.baseUrl && url.pathname === '/admin/login');
    await page.getByText(/Your account has no role in this service/).waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(await page.evaluate(`localStorage.getItem('adminToken')`)).toBeNull();
  });

  it('never switches a signed-in admin unasked: a code from someone else is refused, a second sign-in asks first', async () => {
    const me = () =>
      page.evaluate<{ username: string; role: string }>(
        `fetch('/api/admin/me', { headers: { Authorization: 'Bearer ' + localStorage.getItem('adminToken') } }).then((r) => r.json())`,
      );
    const exchanges: string[] = [];
    page.on('request', (r) => {
      if (new URL(r.url()).pathname === '/api/admin/oidc/exchange') exchanges.push(r.method());
    });
    await page.goto('/admin/login');
    await page.getByLabel('Username').fill('admin');
    await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign In' }).click();
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    const adminRefresh = await page.evaluate<string>(`localStorage.getItem('adminRefreshToken')`);

    // Someone signs in as themselves in their own browser and sends the admin the console link with their code.
    idp.identities.set('trent', { sub: 'trent', preferred_username: 'trent', groups: ['ovr-operators'] });
    const attacker = await signInThrough(t.baseUrl, 'trent');
    expect(attacker.code).toMatch(/^[\w-]{43}$/);
    await page.goto(`/admin/login#sso-code=${attacker.code}`);
    const dialog = page.getByRole('dialog', { name: 'Switch account?' });
    await dialog.getByText('You are signed in as admin. Switch to the account you just signed in with?').waitFor();
    expect(new URL(page.url()).hash).toBe('');
    expect(exchanges).toEqual([]);
    // Even if the admin agrees, this browser holds no cookie for that code: refused, still the admin.
    await dialog.getByRole('button', { name: 'Switch account' }).click();
    await page
      .getByRole('region', { name: /notifications/i })
      .getByText('Invalid or expired single sign-on code. Please sign in again.')
      .waitFor();
    await page.waitForURL((url) => url.pathname === '/admin');
    expect(exchanges).toEqual(['POST']);
    expect(await me()).toMatchObject({ username: 'admin', role: 'admin' });
    // The code was spent by that attempt: worthless to its owner too.
    const replay = await fetch(`${t.baseUrl}/api/admin/oidc/exchange`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: attacker.cookie! },
      body: JSON.stringify({ code: attacker.code }),
    });
    expect(replay.status).toBe(401);

    // A genuine second sign-in in this browser: asked first; "Stay" exchanges nothing.
    idp.identities.set('olga', { sub: 'olga', preferred_username: 'olga', groups: ['ovr-operators'] });
    await page.goto('/api/admin/oidc/login');
    await providerForm('olga');
    await dialog.waitFor();
    await page.screenshot({ path: join(results, 'sso-switch-account.png'), animations: 'disabled' });
    await dialog.getByRole('button', { name: 'Stay signed in as admin' }).click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    expect(exchanges).toEqual(['POST']);
    expect(await me()).toMatchObject({ username: 'admin' });

    // Once more (the provider remembers olga), and "Switch account": the console is olga's, the admin's session over.
    await page.goto('/api/admin/oidc/login');
    const loggedOut = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/admin/logout');
    await dialog.getByRole('button', { name: 'Switch account' }).click();
    await page.waitForURL((url) => url.pathname === '/admin');
    await page.getByRole('heading', { name: 'Admin Dashboard' }).waitFor();
    expect(await me()).toMatchObject({ username: 'olga', role: 'operator' });
    expect(exchanges).toEqual(['POST', 'POST']);
    expect((await loggedOut).status()).toBe(200);
    const oldSession = await fetch(`${t.baseUrl}/api/admin/refresh`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refreshToken: adminRefresh }),
    });
    expect(oldSession.status).toBe(401);
  });
});

/** The provider going away in the middle of a sign-in: its own provider and app, so the other tests keep theirs. */
describe('Staff single sign-on in the browser with the provider stopped mid-flow', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    ({ idp, t } = await startSsoApp());
    browser = await connectChromium();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await idp?.close();
  });

  it('shows the "cannot be reached" message when the provider stops between its form and the callback', async () => {
    const context = await browser.newContext({ baseURL: t.baseUrl, viewport: { width: 1366, height: 900 } });
    try {
      const page = await context.newPage();
      idp.identities.set('paula', { sub: 'paula', preferred_username: 'paula', groups: ['ovr-operators'] });
      // The provider has sent the browser back with its code: it stops before the app can exchange that code. The
      // DevTools protocol pauses the callback although it is a redirect's target (page.route only sees a chain's
      // first request).
      const cdp = await context.newCDPSession(page);
      let stopped = false;
      cdp.on('Fetch.requestPaused', ({ requestId }: { requestId: string }) => {
        void idp.close().then(() => {
          stopped = true;
          return cdp.send('Fetch.continueRequest', { requestId });
        });
      });
      await cdp.send('Fetch.enable', { patterns: [{ urlPattern: `${t.baseUrl}/api/admin/oidc/callback*` }] });
      await page.goto('/admin/login');
      await page.getByRole('link', { name: 'Sign in with Contoso' }).click();
      await page.waitForURL((url) => url.origin === idp.issuer);
      await page.locator('input[name="login"]').fill('paula');
      await page.locator('input[name="password"]').fill('any password');
      await page.getByRole('button', { name: 'Sign-in' }).click();
      await page.waitForURL((url) => url.origin === t.baseUrl && url.pathname === '/admin/login');
      await page.getByText('The sign-in provider cannot be reached. Please try again later.').waitFor();
      expect(stopped).toBe(true);
      expect(new URL(page.url()).hash).toBe('');
      expect(await page.evaluate(`localStorage.getItem('adminToken')`)).toBeNull();
    } finally {
      await context.close();
    }
  });
});
