import { startTestApp, TestApp } from './helpers/app';
import { followCallback, startOidcProvider, TEST_CLIENT, throughProvider } from './helpers/oidc-provider';

const UNAVAILABLE = '/admin/login#sso-error=unavailable';

const ssoEnv = (issuer: string) => ({
  OIDC_ISSUER: issuer,
  OIDC_CLIENT_ID: TEST_CLIENT.id,
  OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
  OIDC_DISPLAY_NAME: 'Contoso',
  OIDC_ROLES: 'admin:ovr-admins,operator:ovr-operators',
  LOCAL_LOGIN: 'false',
});

/**
 * The OpenID provider down (docs/auth.md "Single sign-on"): a real provider in this process, stopped before the
 * sign-in starts or in the middle of one. The console is sent back to its login page with `unavailable`, whose
 * text says to try again later; never a 500, never the "failed" of a refused sign-in.
 */
describe('Single sign-on with the OpenID provider down', () => {
  const apps: TestApp[] = [];
  afterAll(async () => {
    for (const t of apps) await t.close();
  });

  it('sends the console back with "unavailable" when discovery fails (the provider stopped before /login)', async () => {
    const idp = await startOidcProvider();
    await idp.close();
    const t = await startTestApp(ssoEnv(idp.issuer));
    apps.push(t);
    const res = await t.http().get('/api/admin/oidc/login').redirects(0).expect(302);
    expect(res.headers.location).toBe(UNAVAILABLE);
    // No sign-in state was handed out for a sign-in that could not start.
    expect(String(res.headers['set-cookie'] ?? '')).not.toContain('ovr_oidc=');
    // Still down at the next try: the same answer, not a cached failure turned into an error.
    expect((await t.http().get('/api/admin/oidc/login').redirects(0).expect(302)).headers.location).toBe(UNAVAILABLE);
  });

  it('sends the console back with "unavailable", audited, when the token exchange fails (stopped mid-flow)', async () => {
    const idp = await startOidcProvider();
    const t = await startTestApp(ssoEnv(idp.issuer));
    apps.push(t);
    idp.trust(t.baseUrl);
    idp.identities.set('mid-flow', { sub: 'mid-flow', email: 'mid@contoso.example', groups: ['ovr-operators'] });
    // At the provider and back: the browser holds the provider's code, then the provider goes away.
    const { callbackUrl, appCookies } = await throughProvider(t.baseUrl, 'mid-flow');
    await idp.close();

    const handoff = await followCallback(callbackUrl, appCookies);
    expect(handoff.location).toBe(UNAVAILABLE);
    expect(handoff.cookie).toBeNull();
    const rows = await t.db.query(
      `SELECT success, admin_user_id, details->>'reason' AS reason FROM security_audit_log
        WHERE action = 'login.sso-failure' ORDER BY created_at`,
    );
    expect(rows).toEqual([
      { success: false, admin_user_id: null, reason: expect.stringMatching(/^provider unreachable: /) },
    ]);
    // Nobody was admitted: no account, no session.
    expect(await t.db.query(`SELECT 1 FROM admin_users WHERE oidc_subject = 'mid-flow'`)).toEqual([]);
  });
});
