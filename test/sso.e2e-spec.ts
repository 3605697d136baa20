import { Writable } from 'stream';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { bearer, createAdminUser } from './helpers/auth';
import {
  AppHandoff,
  followCallback,
  signInThrough,
  startOidcProvider,
  TEST_CLIENT,
  TestIdentity,
  TestOidcProvider,
  throughProvider,
} from './helpers/oidc-provider';

const REFUSED = 'Invalid or expired single sign-on code. Please sign in again.';

/**
 * Staff single sign-on against a real OpenID provider running in this process (docs/auth.md "Single sign-on"),
 * with password sign-in turned off for everyone but the break-glass admin.
 */
describe('Single sign-on through an OpenID provider', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let n = 0;
  // The request log, as an operator's log file would hold it.
  const log: string[] = [];

  beforeAll(async () => {
    idp = await startOidcProvider();
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        log.push(chunk.toString());
        done();
      },
    });
    t = await startTestApp(
      {
        OIDC_ISSUER: idp.issuer,
        OIDC_CLIENT_ID: TEST_CLIENT.id,
        OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
        OIDC_DISPLAY_NAME: 'Contoso',
        OIDC_ROLES: 'admin:ovr-admins,operator:ovr-operators,shop-manager:ovr-shop',
        LOCAL_LOGIN: 'false',
        LOG_LEVEL: 'info',
      },
      { logStream },
    );
    idp.trust(t.baseUrl);
  });
  afterEach(() => jest.restoreAllMocks());
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  /** A new person at the provider in these groups, whose e-mail the provider has verified. */
  function person(groups: string[], extra: Partial<TestIdentity> = {}) {
    const sub = `sub-${++n}-${Date.now()}`;
    idp.identities.set(sub, {
      sub,
      preferred_username: `staff${n}`,
      email: `staff${n}@contoso.example`,
      email_verified: true,
      groups,
      ...extra,
    });
    return sub;
  }

  /** The browser's return to the app after the provider: the app's redirect target. */
  async function callback(url: string, cookies: string): Promise<string> {
    return (await followCallback(url, cookies)).location;
  }

  /** Signs `sub` in through the provider and the app: what the console's browser receives. */
  async function signIn(sub: string): Promise<AppHandoff> {
    const handoff = await signInThrough(t.baseUrl, sub);
    expect(handoff.location).toMatch(/^\/admin\/login#/);
    return handoff;
  }

  /** The console's POST of a code, with the cookie its browser holds (if any). */
  function exchange(code: string | null, cookie?: string | null) {
    const req = t.http().post('/api/admin/oidc/exchange');
    if (cookie) req.set('Cookie', cookie);
    return req.send({ code });
  }

  /** What the console does with `#sso-code=<code>`: exchanges it, its browser's cookie going along. */
  async function consoleTokens(handoff: AppHandoff) {
    const res = await exchange(handoff.code, handoff.cookie).expect(200);
    return res.body as { accessToken: string; refreshToken: string };
  }

  const sessionsOf = async (userId: string) =>
    (await t.db.query(`SELECT count(*)::int AS n FROM admin_sessions WHERE admin_user_id = $1`, [userId]))[0].n;
  const clearsCookie = (res: { headers: Record<string, unknown> }) =>
    expect((res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('ovr_sso_handoff='))).toMatch(
      /^ovr_sso_handoff=;.*Path=\/api\/admin\/oidc\/exchange;.*Expires=Thu, 01 Jan 1970/,
    );

  const accountOf = async (sub: string) =>
    (
      await t.db.query(
        `SELECT id, username, email, role FROM admin_users WHERE oidc_issuer = $1 AND oidc_subject = $2`,
        [idp.issuer, sub],
      )
    )[0];
  const audit = (action: string, userId: string | null) =>
    t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = $1 AND admin_user_id IS NOT DISTINCT FROM $2 ORDER BY created_at`,
      [action, userId],
    );

  it('tells the login page the provider name', async () => {
    const res = await t.http().get('/api/public-config').expect(200);
    expect(res.body.ssoDisplayName).toBe('Contoso');
  });

  it('starts the code flow with PKCE S256, state and nonce, keeping them in a signed httpOnly cookie', async () => {
    const res = await t.http().get('/api/admin/oidc/login').expect(302);
    const url = new URL(res.headers.location);
    expect(url.origin).toBe(idp.issuer);
    expect(Object.fromEntries(url.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: TEST_CLIENT.id,
      redirect_uri: `${t.baseUrl}/api/admin/oidc/callback`,
      code_challenge_method: 'S256',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      state: expect.any(String),
      nonce: expect.any(String),
    });
    const cookie = (res.headers['set-cookie'] as unknown as string[]).find((c) => c.startsWith('ovr_oidc='))!;
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).toMatch(/Path=\/api\/admin\/oidc/);
    // The secrets are signed, not readable: neither the state nor the verifier sits in the cookie in clear.
    expect(cookie).not.toContain(url.searchParams.get('state')!);
  });

  it('signs an operator in: account created on first sign-in, role from the group, a normal session', async () => {
    const sub = person(['ovr-operators', 'unrelated']);
    const handoff = await signIn(sub);
    expect(handoff.fragment.get('sso-error')).toBeNull();
    // The redirect carries a one-time code; the cookie binding it to this browser goes only to the exchange.
    expect(handoff.location).toMatch(/^\/admin\/login#sso-code=[\w-]{43}$/);
    expect(handoff.setCookie).toMatch(/HttpOnly/);
    expect(handoff.setCookie).toMatch(/SameSite=Strict/);
    expect(handoff.setCookie).toMatch(/Path=\/api\/admin\/oidc\/exchange(;|$)/);
    expect(handoff.setCookie).toMatch(/Max-Age=60(;|$)/);
    expect(handoff.setCookie).not.toMatch(/Secure/); // http in tests; Secure with NODE_ENV=production
    const account = await accountOf(sub);
    // No session before the exchange: the code alone is not one.
    expect(await sessionsOf(account.id)).toBe(0);
    const res = await exchange(handoff.code, handoff.cookie).expect(200);
    clearsCookie(res);
    expect(res.body).toEqual({
      accessToken: expect.any(String),
      refreshToken: expect.stringMatching(/^[\w-]{43}$/),
      requiresTwoFactor: false,
    });
    const { accessToken } = res.body;
    const me = await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(200);
    expect(me.body).toMatchObject({ username: `staff${n}`, email: `staff${n}@contoso.example`, role: 'operator' });
    expect(me.body.permissions).toContain('vouchers.upload');
    expect(me.body.permissions).not.toContain('settings.access');
    await t.http().get('/api/admin/api-tokens').set(bearer(accessToken)).expect(403);

    const [row] = await audit('login.success', account.id);
    expect(row.details).toMatchObject({
      method: 'oidc',
      issuer: idp.issuer,
      subject: sub,
      role: 'operator',
      accountCreated: true,
    });
    // The code was single-use: the same code and cookie again open nothing (and end nothing).
    const replay = await exchange(handoff.code, handoff.cookie).expect(401);
    expect(replay.body.message).toBe(REFUSED);
    clearsCookie(replay);
    expect(await sessionsOf(account.id)).toBe(1);
    await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(200);
  });

  it('stores the provider’s e-mail only when the provider verified it', async () => {
    const sub = person(['ovr-operators'], { email_verified: false, email: `someone.else${n}@contoso.example` });
    const { accessToken } = await consoleTokens(await signIn(sub));
    const me = await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(200);
    // Neither the address nor its local part: the username is the preferred_username, the address a placeholder.
    expect(me.body).toMatchObject({ username: `staff${n}`, email: `staff${n}@localhost`, role: 'operator' });
  });

  it('opens nothing for a code without its cookie, with another browser’s cookie, spent or expired (401)', async () => {
    const sub = person(['ovr-admins']);
    const account = async () => (await accountOf(sub)).id;
    const refusals = async () =>
      (
        await t.db.query(
          `SELECT details->>'reason' AS reason FROM security_audit_log
            WHERE action = 'login.sso-failure' AND admin_user_id = $1 ORDER BY created_at`,
          [await account()],
        )
      ).map((r: { reason: string }) => r.reason);

    // An attacker's code in the victim's browser (login CSRF): the victim's browser has no cookie for it.
    const attackers = await signIn(sub);
    const noCookie = await exchange(attackers.code).expect(401);
    expect(noCookie.body.message).toBe(REFUSED);
    clearsCookie(noCookie);
    // Presented once, the code is spent: the browser it belonged to cannot use it any more either.
    await exchange(attackers.code, attackers.cookie).expect(401);

    // Two sign-ins in two browsers: each code works only with its own browser's cookie.
    const first = await signIn(sub);
    const second = await signIn(sub);
    expect((await exchange(first.code, second.cookie).expect(401)).body.message).toBe(REFUSED);
    expect((await exchange(second.code, 'ovr_sso_handoff=forged').expect(401)).body.message).toBe(REFUSED);

    // A code older than 60 s (the app's Clock moved on) with its own cookie.
    const late = await signIn(sub);
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() + 61_000));
    const expired = await exchange(late.code, late.cookie).expect(401);
    expect(expired.body.message).toBe(REFUSED);
    clearsCookie(expired);
    jest.restoreAllMocks();

    // An unknown code, and bad input: refused, nothing written.
    await exchange('x'.repeat(43), late.cookie).expect(401);
    expect((await exchange('').expect(400)).body.message).toBe('Single sign-on code is required');
    await exchange('x'.repeat(129)).expect(400);

    expect(await sessionsOf(await account())).toBe(0);
    expect(await refusals()).toEqual([
      'hand-off code presented without the cookie of the browser it was issued to',
      'hand-off code presented without the cookie of the browser it was issued to',
      'hand-off code presented without the cookie of the browser it was issued to',
      'hand-off code expired (60 s)',
    ]);
    // Within the minute and with its cookie, a code of the same person still works.
    await consoleTokens(await signIn(sub));
    expect(await sessionsOf(await account())).toBe(1);
  });

  it('leaves nothing in the request log that opens a session: no code, no cookie, no token', async () => {
    const sub = person(['ovr-admins']);
    const from = log.length;
    const handoff = await signIn(sub);
    // Whatever token-like string the log holds now is tried where a session could be had: at the exchange with this
    // browser's cookie (before the console spends the code) and at the refresh.
    const candidates = () => [
      ...new Set(
        log
          .slice(from)
          .join('')
          .match(/[\w-]{20,}/g),
      ),
    ];
    const tried = candidates();
    expect(tried.length).toBeGreaterThan(0);
    for (const value of tried) {
      expect((await exchange(value.slice(0, 128), handoff.cookie)).status).toBe(401);
      expect((await t.http().post('/api/admin/refresh').send({ refreshToken: value })).status).toBe(401);
    }
    const tokens = await consoleTokens(handoff);
    const refreshed = (
      await t.http().post('/api/admin/refresh').send({ refreshToken: tokens.refreshToken }).expect(200)
    ).body as { accessToken: string; refreshToken: string };
    await t.http().get('/api/admin/me').set(bearer(refreshed.accessToken)).expect(200);

    const text = log.slice(from).join('');
    // The sign-in was logged (the callback's 302 and the exchange), without its secrets.
    expect(text).toContain('/api/admin/oidc/callback');
    expect(text).toContain('/api/admin/oidc/exchange');
    const secrets = [
      handoff.code!,
      handoff.cookie!.split('=')[1],
      tokens.accessToken,
      tokens.refreshToken,
      refreshed.accessToken,
      refreshed.refreshToken,
    ];
    for (const secret of secrets) expect(text).not.toContain(secret);
    for (const value of candidates()) {
      expect((await t.http().post('/api/admin/refresh').send({ refreshToken: value })).status).toBe(401);
    }
  });

  it('refuses (and audits) a person whose groups map to no role, creating no account', async () => {
    const sub = person(['marketing']);
    const { fragment, cookie } = await signIn(sub);
    expect(fragment.get('sso-error')).toBe('no-role');
    expect(fragment.get('sso-code')).toBeNull();
    expect(cookie).toBeNull();
    expect(await accountOf(sub)).toBeUndefined();
    const rows = await t.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'login.sso-failure' AND details->>'subject' = $1`,
      [sub],
    );
    expect(rows).toEqual([
      {
        details: expect.objectContaining({ reason: 'no configured role in the role claim', claimValue: ['marketing'] }),
      },
    ]);
  });

  it('re-reads the role at every sign-in: promoted, then removed from every group (role and sessions gone)', async () => {
    const sub = person(['ovr-shop']);
    const first = await consoleTokens(await signIn(sub));
    const account = await accountOf(sub);
    expect(account.role).toBe('shop-manager');

    idp.identities.get(sub)!.groups = ['ovr-admins', 'ovr-operators'];
    const second = await consoleTokens(await signIn(sub));
    expect((await t.http().get('/api/admin/me').set(bearer(second.accessToken)).expect(200)).body.role).toBe('admin');
    // The same account, not a second one.
    expect((await accountOf(sub)).id).toBe(account.id);
    const [, promoted] = await audit('login.success', account.id);
    expect(promoted.details).toMatchObject({ role: 'admin', previousRole: 'shop-manager', accountCreated: false });

    idp.identities.get(sub)!.groups = [];
    expect((await signIn(sub)).fragment.get('sso-error')).toBe('no-role');
    expect((await accountOf(sub)).role).toBe('none');
    await t.http().get('/api/admin/me').set(bearer(first.accessToken)).expect(401);
    await t.http().get('/api/admin/me').set(bearer(second.accessToken)).expect(401);
    expect(await audit('login.sso-failure', account.id)).toEqual([
      { success: false, details: expect.objectContaining({ reason: 'no configured role in the role claim' }) },
    ]);
  });

  it('never takes over a local account with the same username', async () => {
    const local = await createAdminUser(t, { role: 'admin', username: `taken_${n}` });
    const sub = person(['ovr-operators'], {
      preferred_username: local.username,
      email: `${local.username}@example.com`,
    });
    await consoleTokens(await signIn(sub));
    const account = await accountOf(sub);
    expect(account.id).not.toBe(local.id);
    expect(account.username).toMatch(new RegExp(`^${local.username}_[0-9a-f]{6}$`));
    const [untouched] = await t.db.query(`SELECT role, oidc_subject FROM admin_users WHERE id = $1`, [local.id]);
    expect(untouched).toEqual({ role: 'admin', oidc_subject: null });
  });

  it('refuses a callback whose state was changed, and a replayed code', async () => {
    const sub = person(['ovr-operators']);
    const forged = await throughProvider(t.baseUrl, sub);
    const url = new URL(forged.callbackUrl);
    url.searchParams.set('state', 'not-the-state-we-sent');
    expect(await callback(url.href, forged.appCookies)).toBe('/admin/login#sso-error=failed');
    expect(await accountOf(sub)).toBeUndefined();

    const honest = await throughProvider(t.baseUrl, sub);
    const handoff = await followCallback(honest.callbackUrl, honest.appCookies);
    expect(handoff.location).toMatch(/^\/admin\/login#sso-code=[\w-]{43}$/);
    await consoleTokens(handoff);
    const account = await accountOf(sub);
    expect(await sessionsOf(account.id)).toBe(1);
    // The same redirect again (a code copied from a log or the history): the provider spent the code.
    const again = await followCallback(honest.callbackUrl, honest.appCookies);
    expect(again.location).toBe('/admin/login#sso-error=failed');
    expect(again.cookie).toBeNull();
    expect(await sessionsOf(account.id)).toBe(1);
    const failures = await t.db.query(
      `SELECT details->>'reason' AS reason FROM security_audit_log WHERE action = 'login.sso-failure' AND created_at > now() - interval '1 minute' ORDER BY created_at`,
    );
    expect(failures.map((f: { reason: string }) => f.reason)).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^callback rejected: .*state/),
        expect.stringMatching(/^callback rejected: .*invalid_grant/),
      ]),
    );
  });

  it('refuses a callback without the sign-in cookie (another browser), writing nothing', async () => {
    const sub = person(['ovr-operators']);
    const { callbackUrl } = await throughProvider(t.baseUrl, sub);
    const [{ before }] = await t.db.query(`SELECT count(*)::int AS before FROM security_audit_log`);
    expect(await callback(callbackUrl, '')).toBe('/admin/login#sso-error=failed');
    const [{ after }] = await t.db.query(`SELECT count(*)::int AS after FROM security_audit_log`);
    expect(after).toBe(before);
    expect(await accountOf(sub)).toBeUndefined();
  });

  it('LOCAL_LOGIN=false: a local password works for the ADMIN_USERNAME account only', async () => {
    const operator = await createAdminUser(t, { role: 'operator' });
    const res = await t
      .http()
      .post('/api/admin/login')
      .send({ username: operator.username, password: operator.password })
      .expect(401);
    expect(res.body.message).toBe('Invalid username or password');
    const [row] = await t.db.query(
      `SELECT details FROM security_audit_log WHERE action = 'login.failure' AND details->>'username' = $1`,
      [operator.username],
    );
    expect(row.details.reason).toMatch(/LOCAL_LOGIN=false/);
    await t.http().post('/api/admin/login').send({ username: 'admin', password: TEST_ADMIN_PASSWORD }).expect(200);
  });
});
