import { startTestApp, TestApp } from './helpers/app';
import { bearer } from './helpers/auth';
import { signInThrough, startOidcProvider, TEST_CLIENT, TestIdentity, TestOidcProvider } from './helpers/oidc-provider';

/**
 * Single sign-on whose role claim is the person's e-mail (docs/auth.md "Which claims may grant a role"), with the
 * sign-in limited to the company's domains: an identity-like claim grants a role only when the provider verified it.
 */
describe('Single sign-on with the e-mail as the role claim and allowed domains', () => {
  let idp: TestOidcProvider;
  let t: TestApp;
  let n = 0;

  beforeAll(async () => {
    idp = await startOidcProvider();
    t = await startTestApp({
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: TEST_CLIENT.id,
      OIDC_CLIENT_SECRET: TEST_CLIENT.secret,
      OIDC_ROLE_CLAIM: 'email',
      OIDC_ROLES: 'admin:ada@contoso.example,operator:olga@contoso.example,shop-manager:sam@partner.example',
      OIDC_ALLOWED_DOMAINS: 'Contoso.example',
    });
    idp.trust(t.baseUrl);
  });
  afterAll(async () => {
    await t.close();
    await idp.close();
  });

  /** Someone at the provider whose account says this about them. */
  function person(claims: Omit<TestIdentity, 'sub'>) {
    const sub = `sub-${++n}-${Date.now()}`;
    idp.identities.set(sub, { sub, preferred_username: `person${n}`, ...claims });
    return sub;
  }

  /** Through the provider and the callback, then the exchange when a code came back; the outcome. */
  async function signIn(sub: string): Promise<{ error: string | null; accessToken?: string }> {
    const handoff = await signInThrough(t.baseUrl, sub);
    if (!handoff.code) return { error: handoff.fragment.get('sso-error') };
    const res = await t
      .http()
      .post('/api/admin/oidc/exchange')
      .set('Cookie', handoff.cookie!)
      .send({ code: handoff.code })
      .expect(200);
    return { error: null, accessToken: res.body.accessToken };
  }

  const accountOf = async (sub: string) =>
    (
      await t.db.query(`SELECT id, email, role FROM admin_users WHERE oidc_issuer = $1 AND oidc_subject = $2`, [
        idp.issuer,
        sub,
      ])
    )[0];
  const refusalsOf = (sub: string) =>
    t.db.query(
      `SELECT admin_user_id, details FROM security_audit_log
        WHERE action = 'login.sso-failure' AND details->>'subject' = $1 ORDER BY created_at`,
      [sub],
    );

  it('maps a verified e-mail to its role and stores the address on the account', async () => {
    const sub = person({ email: 'ada@contoso.example', email_verified: true });
    const { error, accessToken } = await signIn(sub);
    expect(error).toBeNull();
    const me = await t.http().get('/api/admin/me').set(bearer(accessToken!)).expect(200);
    expect(me.body).toMatchObject({ role: 'admin', email: 'ada@contoso.example' });
  });

  it.each([
    ['false', false],
    ['missing', undefined],
    ['the string "true"', 'true'],
  ])('refuses (and audits) an e-mail the provider did not verify (email_verified %s)', async (_, verified) => {
    // Anyone can type the admin's address into their own profile at many providers: that must not make them admin.
    const sub = person({ email: 'ada@contoso.example', email_verified: verified, hd: 'contoso.example' });
    expect(await signIn(sub)).toEqual({ error: 'unverified' });
    expect(await accountOf(sub)).toBeUndefined();
    expect(await refusalsOf(sub)).toEqual([
      {
        admin_user_id: null,
        details: expect.objectContaining({
          reason: 'the role claim email is not verified by the provider (email_verified)',
          roleClaim: 'email',
          claimValue: 'ada@contoso.example',
          emailVerified: verified ?? null,
        }),
      },
    ]);
  });

  it('lets in only the allowed domains: Google’s hd or the verified e-mail’s domain', async () => {
    // sam@partner.example maps to shop-manager, but partner.example is not an allowed domain...
    const outsider = person({ email: 'sam@partner.example', email_verified: true });
    expect(await signIn(outsider)).toEqual({ error: 'domain' });
    expect(await accountOf(outsider)).toBeUndefined();
    expect(await refusalsOf(outsider)).toEqual([
      {
        admin_user_id: null,
        details: expect.objectContaining({
          reason: 'neither hd nor a verified e-mail is of an allowed domain',
          hd: null,
          emailVerified: true,
        }),
      },
    ]);
    // ...unless the provider says the account belongs to the company's Workspace domain (`hd`).
    const member = person({ email: 'sam@partner.example', email_verified: true, hd: 'contoso.example' });
    const { error, accessToken } = await signIn(member);
    expect(error).toBeNull();
    expect((await t.http().get('/api/admin/me').set(bearer(accessToken!)).expect(200)).body.role).toBe('shop-manager');

    // Out of the Workspace later: refused like a lost group, the account's role and sessions gone.
    delete idp.identities.get(member)!.hd;
    expect(await signIn(member)).toEqual({ error: 'domain' });
    expect((await accountOf(member)).role).toBe('none');
    await t.http().get('/api/admin/me').set(bearer(accessToken!)).expect(401);

    // An unverified e-mail of an allowed domain is no proof either (and gets no role here anyway).
    const unverified = person({ email: 'olga@contoso.example', email_verified: false });
    expect(await signIn(unverified)).toEqual({ error: 'unverified' });
    const olga = person({ email: 'olga@contoso.example', email_verified: true });
    expect((await signIn(olga)).error).toBeNull();
    expect((await accountOf(olga)).role).toBe('operator');
  });
});
