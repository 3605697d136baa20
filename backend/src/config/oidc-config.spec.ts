import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { ConfigError, loadConfig } from './app-config';

describe('single sign-on configuration', () => {
  let dataDir: string;
  beforeEach(() => (dataDir = mkdtempSync(join(tmpdir(), 'ovr-oidc-config-'))));
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  const load = (env: Record<string, string>) => loadConfig({ DATA_DIR: dataDir, ...env });
  const sso = {
    OIDC_ISSUER: 'https://login.example.com/tenant/v2.0',
    OIDC_CLIENT_ID: 'ovr',
    OIDC_ROLES: 'operator:ops,admin:it-admins',
  };

  it('is off by default, with password sign-in on and a token limit of 600 a minute', () => {
    const config = load({});
    expect(config.oidc).toBeUndefined();
    expect(config.localLogin).toBe(true);
    expect(config.apiTokenRateLimit).toBe(600);
  });

  it('reads the provider, the claim and the role mapping (admin first whatever the order given)', () => {
    expect(load(sso).oidc).toEqual({
      issuer: 'https://login.example.com/tenant/v2.0',
      clientId: 'ovr',
      clientSecret: undefined,
      displayName: 'Single Sign-On',
      roleClaim: 'groups',
      roles: [
        { role: 'admin', value: 'it-admins' },
        { role: 'operator', value: 'ops' },
      ],
      redirectUri: undefined,
      allowInsecure: true,
      allowedDomains: [],
      trustUsernameClaims: false,
    });
    expect(load({ ...sso, OIDC_DISPLAY_NAME: 'Contoso', OIDC_ROLE_CLAIM: 'realm_access.roles' }).oidc).toMatchObject({
      displayName: 'Contoso',
      roleClaim: 'realm_access.roles',
    });
  });

  it.each([
    [{ ...sso, OIDC_CLIENT_ID: '' }, 'OIDC_CLIENT_ID'],
    [{ ...sso, OIDC_ROLES: '' }, 'OIDC_ROLES'],
    [{ ...sso, OIDC_ROLES: 'auditor:x' }, 'OIDC_ROLES'],
    [{ ...sso, OIDC_ROLES: 'admin:' }, 'OIDC_ROLES'],
    [{ ...sso, OIDC_ROLES: 'admin:a,admin:b' }, 'OIDC_ROLES'],
    [{ ...sso, OIDC_ISSUER: 'not a url' }, 'OIDC_ISSUER'],
    [{ ...sso, OIDC_ISSUER: 'ftp://idp.example.com' }, 'OIDC_ISSUER'],
    [
      {
        ...sso,
        OIDC_ISSUER: 'http://idp.example.com',
        NODE_ENV: 'production',
        JWT_SECRET: 'x'.repeat(32),
        DATA_KEY: Buffer.alloc(32).toString('base64'),
        SMTP_URL: 'smtp://mail.example.com:587',
        PUBLIC_URL: 'https://licences.example.com',
      },
      'OIDC_ISSUER',
    ],
    [{ OIDC_CLIENT_ID: 'ovr' }, 'OIDC_CLIENT_ID'],
    [{ OIDC_ALLOWED_DOMAINS: 'example.com' }, 'OIDC_ALLOWED_DOMAINS'],
    [{ ...sso, OIDC_ALLOWED_DOMAINS: 'example.com,not a domain' }, 'OIDC_ALLOWED_DOMAINS'],
    [{ ...sso, OIDC_ALLOWED_DOMAINS: '@example.com' }, 'OIDC_ALLOWED_DOMAINS'],
    [{ ...sso, OIDC_ROLE_CLAIM: 'preferred_username' }, 'OIDC_TRUST_USERNAME_CLAIMS'],
    [{ ...sso, OIDC_ROLE_CLAIM: 'upn' }, 'OIDC_TRUST_USERNAME_CLAIMS'],
    [{ ...sso, OIDC_ROLE_CLAIM: 'upn', OIDC_TRUST_USERNAME_CLAIMS: 'maybe' }, 'OIDC_TRUST_USERNAME_CLAIMS'],
    [{ LOCAL_LOGIN: 'false' }, 'LOCAL_LOGIN'],
    [{ ...sso, LOCAL_LOGIN: 'maybe' }, 'LOCAL_LOGIN'],
    [{ API_TOKEN_RATE_LIMIT: '-1' }, 'API_TOKEN_RATE_LIMIT'],
  ])('refuses %j naming %s', (env, name) => {
    expect(() => load(env as Record<string, string>)).toThrow(ConfigError);
    expect(() => load(env as Record<string, string>)).toThrow(name);
  });

  it('reads the allowed domains (lower-cased, once each) and username claims only when declared trusted', () => {
    expect(
      load({ ...sso, OIDC_ALLOWED_DOMAINS: ' Contoso.example, sub.contoso.example,contoso.example ' }).oidc,
    ).toMatchObject({ allowedDomains: ['contoso.example', 'sub.contoso.example'] });
    expect(load({ ...sso, OIDC_ROLE_CLAIM: 'upn', OIDC_TRUST_USERNAME_CLAIMS: 'true' }).oidc).toMatchObject({
      roleClaim: 'upn',
      trustUsernameClaims: true,
    });
    // e-mail may be mapped: it grants a role only when the provider marks it verified (at sign-in).
    expect(load({ ...sso, OIDC_ROLE_CLAIM: 'email' }).oidc?.roleClaim).toBe('email');
  });

  it('accepts http:// issuers outside production only, and LOCAL_LOGIN=false with single sign-on', () => {
    expect(load({ ...sso, OIDC_ISSUER: 'http://127.0.0.1:9000' }).oidc?.issuer).toBe('http://127.0.0.1:9000');
    expect(load({ ...sso, LOCAL_LOGIN: 'false' }).localLogin).toBe(false);
  });
});
