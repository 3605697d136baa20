import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { bearer, createAdminUser } from './helpers/auth';
import { startOidcProvider, TEST_CLIENT, TestOidcProvider, throughProvider } from './helpers/oidc-provider';

/**
 * Staff single sign-on against a real OpenID provider running in this process (docs/auth.md "Single sign-on"),
 * with password sign-in turned off for everyone but the break-glass admin.
 */
describe('Single sign-on through an OpenID provider', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    idp = await startOidcProvider();
    t = await startTestApp({
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT.id,
      OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
      OIDC_DISPLAY_NAME: 'Contoso',
      OIDC_ROLES: 'admin:ovr-admins,operator:ovr-operators,shop-manager:ovr-shop',
      LOCAL_LOGIN: 'false',
    });
    idp.trust(t.baseUrl);
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  /** A new person at the provider in these groups. */
  function person(groups: string[], extra: Record<string, string> = {}) {
    const sub = `sub-${++n}-${Date.now()}`;
    idp.identities.set(sub, {
      sub,
      preferred_username: `staff${n}`,
      email: `staff${n}@contoso.example`,
      groups,
      ...extra,
    });
    return sub;
  }

  /** The browser's return to the app after the provider: the app's redirect target. */
  async function callback(url: string, cookies: string): Promise<string> {
    const res = await fetch(url, { redirect: 'manual', headers: { cookie: cookies } });
    expect(res.status).toBe(302);
    return res.headers.get('location')!;
  }

  /** Signs `sub` in through the provider and the app; the fragment the console receives. */
  async function signIn(sub: string): Promise<URLSearchParams> {
    const { callbackUrl, appCookies } = await throughProvider(t.baseUrl, sub);
    const location = await callback(callbackUrl, appCookies);
    expect(location).toMatch(/^\/admin\/login#/);
    return new URLSearchParams(location.split('#')[1]);
  }

  /** What the console does with `#sso=<refresh token>`: spends it at once for its own tokens. */
  async function consoleTokens(fragment: URLSearchParams) {
    const res = await t
      .http()
      .post('/api/admin/refresh')
      .send({ refreshToken: fragment.get('sso') })
      .expect(200);
    return res.body as { accessToken: string; refreshToken: string };
  }

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
    const fragment = await signIn(sub);
    expect(fragment.get('sso-error')).toBeNull();
    const { accessToken } = await consoleTokens(fragment);
    const me = await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(200);
    expect(me.body).toMatchObject({ username: `staff${n}`, email: `staff${n}@contoso.example`, role: 'operator' });
    expect(me.body.permissions).toContain('vouchers.upload');
    expect(me.body.permissions).not.toContain('settings.access');
    await t.http().get('/api/admin/api-tokens').set(bearer(accessToken)).expect(403);

    const account = await accountOf(sub);
    const [row] = await audit('login.success', account.id);
    expect(row.details).toMatchObject({
      method: 'oidc',
      issuer: idp.issuer,
      subject: sub,
      role: 'operator',
      accountCreated: true,
    });
    // The handed-over refresh token was single-use: presented again it ends the session (theft signal).
    await t
      .http()
      .post('/api/admin/refresh')
      .send({ refreshToken: fragment.get('sso') })
      .expect(401);
    await t.http().get('/api/admin/me').set(bearer(accessToken)).expect(401);
  });

  it('refuses (and audits) a person whose groups map to no role, creating no account', async () => {
    const sub = person(['marketing']);
    const fragment = await signIn(sub);
    expect(fragment.get('sso-error')).toBe('no-role');
    expect(fragment.get('sso')).toBeNull();
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
    expect((await signIn(sub)).get('sso-error')).toBe('no-role');
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
    expect(await callback(honest.callbackUrl, honest.appCookies)).toMatch(/^\/admin\/login#sso=[\w-]{43}$/);
    const account = await accountOf(sub);
    const sessions = async () =>
      (await t.db.query(`SELECT count(*)::int AS n FROM admin_sessions WHERE admin_user_id = $1`, [account.id]))[0].n;
    expect(await sessions()).toBe(1);
    // The same redirect again (a code copied from a log or the history): the provider spent the code.
    expect(await callback(honest.callbackUrl, honest.appCookies)).toBe('/admin/login#sso-error=failed');
    expect(await sessions()).toBe(1);
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
