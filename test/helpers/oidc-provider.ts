import { generateKeyPairSync } from 'crypto';
import { createServer, IncomingMessage, Server, ServerResponse } from 'http';
import { AddressInfo } from 'net';
import Provider from 'oidc-provider';

/** A person at the test provider: the login typed into its form is the subject. */
export interface TestIdentity {
  sub: string;
  preferred_username?: string;
  email?: string;
  /** Whether the provider vouches for `email` (a string, as some providers send it, is not a yes). */
  email_verified?: boolean | string;
  /** Google's hosted domain (the Workspace domain of the account). */
  hd?: string;
  name?: string;
  groups?: string[];
}

export const TEST_CLIENT = { id: 'ovr-console', secret: 'test-client-secret-0123456789abcdef' };

export interface TestOidcProvider {
  /** `http://127.0.0.1:<port>` (or the host asked for): the OIDC_ISSUER to give the app. */
  issuer: string;
  /** Who can sign in and what the provider says about them (change between sign-ins to move groups). */
  identities: Map<string, TestIdentity>;
  /** Registers the app at `baseUrl` as the client (its callback as the redirect URI); call once the app listens. */
  trust(baseUrl: string): void;
  close(): Promise<void>;
}

/**
 * A real OpenID provider (`oidc-provider`, the certified Node.js implementation) on a loopback port, with its
 * development login form (any password) and consent skipped for our client, as a company's provider would
 * for a first-party app. Groups travel in the ID token under `groups`, as Entra ID and Keycloak send them.
 */
export async function startOidcProvider({
  host = '127.0.0.1',
}: {
  /** The issuer's host name: `localhost` makes the provider another site than an app on 127.0.0.1 (browsers). */
  host?: '127.0.0.1' | 'localhost';
} = {}): Promise<TestOidcProvider> {
  let handler: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | undefined;
  const server: Server = createServer((req, res) => {
    if (handler) void handler(req, res);
    else res.writeHead(503).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://${host}:${(server.address() as AddressInfo).port}`;
  const identities = new Map<string, TestIdentity>();

  const trust = (baseUrl: string) => {
    const signingKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
    // The provider announces its development-only login form on the console: known here, so kept out of the test output.
    const warn = console.warn;
    console.warn = (...args: unknown[]) => (String(args[0]).startsWith('oidc-provider') ? undefined : warn(...args));
    const provider = new Provider(issuer, {
      jwks: { keys: [{ ...signingKey, kid: 'test', use: 'sig', alg: 'RS256' }] },
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, AuthorizationCode: 60 },
      clients: [
        {
          client_id: TEST_CLIENT.id,
          client_secret: TEST_CLIENT.secret,
          redirect_uris: [`${baseUrl}/api/admin/oidc/callback`],
          grant_types: ['authorization_code'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_post',
        },
      ],
      cookies: { keys: ['test-provider-cookie-key-0123456789'] },
      claims: {
        openid: ['sub', 'groups', 'hd'],
        email: ['email', 'email_verified'],
        profile: ['preferred_username', 'name'],
      },
      conformIdTokenClaims: false,
      pkce: { required: () => true },
      async findAccount(_ctx, sub) {
        const identity = identities.get(sub);
        if (!identity) return undefined;
        return { accountId: sub, claims: async () => ({ ...identities.get(sub)! }) };
      },
      // A first-party client: the grant is given without a consent screen.
      async loadExistingGrant(ctx) {
        const grantId = ctx.oidc.result?.consent?.grantId || ctx.oidc.session!.grantIdFor(ctx.oidc.client!.clientId);
        if (grantId) return ctx.oidc.provider.Grant.find(grantId);
        const grant = new ctx.oidc.provider.Grant({
          clientId: ctx.oidc.client!.clientId,
          accountId: ctx.oidc.session!.accountId!,
        });
        grant.addOIDCScope('openid profile email');
        grant.addOIDCClaims(['groups', 'hd', 'preferred_username', 'name', 'email', 'email_verified']);
        await grant.save();
        return grant;
      },
    });
    console.warn = warn;
    handler = provider.callback();
  };

  return {
    issuer,
    identities,
    trust,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The cookies one browser holds for one site, by name (paths ignored: each test site uses few). */
class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      const name = pair.slice(0, eq).trim();
      const value = pair.slice(eq + 1).trim();
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }
}

async function step(jar: CookieJar, url: string, init: RequestInit = {}): Promise<Response> {
  const res = await fetch(url, {
    ...init,
    redirect: 'manual',
    headers: { ...(init.headers as Record<string, string>), cookie: jar.header() },
  });
  jar.take(res);
  return res;
}

export interface ProviderRoundTrip {
  /** The provider's redirect back to the app (`…/api/admin/oidc/callback?code=…&state=…&iss=…`). */
  callbackUrl: string;
  /** The browser's cookies for the app (the signed sign-in state). */
  appCookies: string;
}

/**
 * What a browser does up to the app's callback: GET /api/admin/oidc/login, follow to the provider, sign in on its
 * form as `login`, follow its redirects until it sends the browser back to the app.
 */
export async function throughProvider(baseUrl: string, login: string): Promise<ProviderRoundTrip> {
  const app = new CookieJar();
  const idp = new CookieJar();
  const start = await step(app, `${baseUrl}/api/admin/oidc/login`);
  if (start.status !== 302) throw new Error(`login answered ${start.status}: ${await start.text()}`);
  let location = new URL(start.headers.get('location')!);
  for (let hops = 0; hops < 10; hops++) {
    if (location.href.startsWith(baseUrl)) return { callbackUrl: location.href, appCookies: app.header() };
    let res = await step(idp, location.href);
    if (res.status === 200 && /name="prompt" value="login"/.test(await res.text())) {
      res = await step(idp, location.href, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ prompt: 'login', login, password: 'any' }).toString(),
      });
    }
    if (res.status < 300 || res.status >= 400) throw new Error(`provider answered ${res.status} at ${location.href}`);
    location = new URL(res.headers.get('location')!, location);
  }
  throw new Error('too many redirects at the provider');
}

/** The app's answer to the provider's redirect back: where it sends the console, and the hand-off's cookie. */
export interface AppHandoff {
  /** The 302's target: `/admin/login#sso-code=…` or `/admin/login#sso-error=…`. */
  location: string;
  fragment: URLSearchParams;
  /** `#sso-code`: the one-time code. */
  code: string | null;
  /** `ovr_sso_handoff=<key>` as a Cookie header, when the answer set it. */
  cookie: string | null;
  /** The Set-Cookie line of the hand-off cookie, attributes included. */
  setCookie: string | undefined;
}

/** The browser's return to the app's callback (with its sign-in cookie), as the app answers it. */
export async function followCallback(callbackUrl: string, appCookies: string): Promise<AppHandoff> {
  const res = await fetch(callbackUrl, { redirect: 'manual', headers: { cookie: appCookies } });
  if (res.status !== 302) throw new Error(`the callback answered ${res.status}: ${await res.text()}`);
  const location = res.headers.get('location')!;
  const fragment = new URLSearchParams(location.split('#')[1] ?? '');
  const setCookie = res.headers.getSetCookie().find((line) => line.startsWith('ovr_sso_handoff='));
  return { location, fragment, code: fragment.get('sso-code'), cookie: setCookie?.split(';')[0] ?? null, setCookie };
}

/** A whole sign-in of `login` up to the console's login page: through the provider and the app's callback. */
export async function signInThrough(baseUrl: string, login: string): Promise<AppHandoff> {
  const { callbackUrl, appCookies } = await throughProvider(baseUrl, login);
  return followCallback(callbackUrl, appCookies);
}
