import { bool, ConfigError, Env, optional } from './env';

/** Staff single sign-on (docs/auth.md "Single sign-on"). Present only when OIDC_ISSUER is set. */
export interface OidcConfig {
  issuer: string;
  clientId: string;
  clientSecret?: string;
  displayName: string;
  /** Claim holding the user's groups/roles; a dot walks into objects (`realm_access.roles`). */
  roleClaim: string;
  /** Role → the claim value that grants it, in the matrix's order of precedence (admin first). */
  roles: Array<{ role: string; value: string }>;
  /** The redirect URI registered at the provider; unset: this origin's `/api/admin/oidc/callback`. */
  redirectUri?: string;
  /** http:// issuers (local providers, tests): only outside production. */
  allowInsecure: boolean;
  /** OIDC_ALLOWED_DOMAINS (lower-cased); empty: any domain. Else Google's `hd` or the verified e-mail's domain. */
  allowedDomains: string[];
  /** OIDC_TRUST_USERNAME_CLAIMS: the provider alone sets preferred_username / upn, so they may grant a role. */
  trustUsernameClaims: boolean;
}

/**
 * Claims a person may be able to set at their provider (docs/auth.md "Which claims may grant a role"). `email` grants
 * a role only when the provider says `email_verified: true`; a username claim only when the operator declares that
 * the provider controls it (OIDC_TRUST_USERNAME_CLAIMS=true), as no standard claim says it was verified.
 */
export const EMAIL_CLAIM = 'email';
export const USERNAME_CLAIMS = ['preferred_username', 'upn', 'unique_name'];

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{2,63}$/;

function parseDomains(raw: string | undefined): string[] {
  const domains = (raw ?? '')
    .split(',')
    .map((d) => d.trim().toLowerCase())
    .filter(Boolean);
  const bad = domains.find((d) => !DOMAIN.test(d));
  if (bad) throw new ConfigError(`OIDC_ALLOWED_DOMAINS: "${bad}" is not a domain name (e.g. example.com,example.org)`);
  return [...new Set(domains)];
}

const ROLE_ORDER = ['admin', 'operator', 'shop-manager'];

function parseRoles(raw: string): Array<{ role: string; value: string }> {
  const roles = new Map<string, string>();
  for (const part of raw
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const colon = part.indexOf(':');
    const role = colon < 0 ? part : part.slice(0, colon).trim();
    const claimValue = colon < 0 ? '' : part.slice(colon + 1).trim();
    if (!ROLE_ORDER.includes(role)) {
      throw new ConfigError(
        `OIDC_ROLES: "${role}" is not a role; use admin, operator or shop-manager (role:value, comma separated)`,
      );
    }
    if (!claimValue) throw new ConfigError(`OIDC_ROLES: role "${role}" needs a claim value (role:value)`);
    if (roles.has(role)) throw new ConfigError(`OIDC_ROLES names "${role}" twice`);
    roles.set(role, claimValue);
  }
  if (!roles.size) {
    throw new ConfigError('OIDC_ROLES is required with OIDC_ISSUER (e.g. admin:ovr-admins,operator:ovr-operators)');
  }
  return ROLE_ORDER.filter((role) => roles.has(role)).map((role) => ({ role, value: roles.get(role)! }));
}

function httpUrl(name: string, raw: string, allowInsecure: boolean): string {
  let parsed: URL;
  try {
    parsed = new URL(raw);
  } catch {
    throw new ConfigError(`${name} is not a valid URL`);
  }
  if (parsed.protocol === 'https:') return raw;
  if (parsed.protocol === 'http:') {
    if (allowInsecure) return raw;
    throw new ConfigError(`${name} must start with https:// when NODE_ENV=production`);
  }
  throw new ConfigError(`${name} must start with https://`);
}

/** OIDC_* variables; undefined when single sign-on is off (OIDC_ISSUER unset). */
export function loadOidcConfig(env: Env, nodeEnv: string): OidcConfig | undefined {
  const issuerRaw = optional(env, 'OIDC_ISSUER');
  if (!issuerRaw) {
    const stray = [
      'OIDC_CLIENT_ID',
      'OIDC_CLIENT_SECRET',
      'OIDC_ROLES',
      'OIDC_REDIRECT_URI',
      'OIDC_ALLOWED_DOMAINS',
    ].find((n) => optional(env, n));
    if (stray) {
      throw new ConfigError(`${stray} is set but OIDC_ISSUER is not: set OIDC_ISSUER to turn single sign-on on`);
    }
    return undefined;
  }
  const allowInsecure = nodeEnv !== 'production';
  const issuer = httpUrl('OIDC_ISSUER', issuerRaw, allowInsecure);
  const clientId = optional(env, 'OIDC_CLIENT_ID');
  if (!clientId) throw new ConfigError('OIDC_CLIENT_ID is required with OIDC_ISSUER');
  const roleClaim = optional(env, 'OIDC_ROLE_CLAIM') ?? 'groups';
  if (!/^[\w:/.-]{1,200}$/.test(roleClaim)) {
    throw new ConfigError('OIDC_ROLE_CLAIM must be a claim name such as groups or realm_access.roles');
  }
  const trustUsernameClaims = bool(env, 'OIDC_TRUST_USERNAME_CLAIMS', false);
  if (USERNAME_CLAIMS.includes(roleClaim) && !trustUsernameClaims) {
    throw new ConfigError(
      `OIDC_ROLE_CLAIM=${roleClaim}: at many providers a person can change their own ${roleClaim}, and no claim says ` +
        'it was verified. Map a group or role claim, or set OIDC_TRUST_USERNAME_CLAIMS=true if only your provider ' +
        'sets it (docs/auth.md "Which claims may grant a role")',
    );
  }
  const redirect = optional(env, 'OIDC_REDIRECT_URI');
  const displayName = optional(env, 'OIDC_DISPLAY_NAME') ?? 'Single Sign-On';
  if (displayName.length > 60) throw new ConfigError('OIDC_DISPLAY_NAME must be at most 60 characters');
  return {
    issuer,
    clientId,
    clientSecret: optional(env, 'OIDC_CLIENT_SECRET'),
    displayName,
    roleClaim,
    roles: parseRoles(optional(env, 'OIDC_ROLES') ?? ''),
    redirectUri: redirect ? httpUrl('OIDC_REDIRECT_URI', redirect, allowInsecure) : undefined,
    allowInsecure,
    allowedDomains: parseDomains(optional(env, 'OIDC_ALLOWED_DOMAINS')),
    trustUsernameClaims,
  };
}

/** LOCAL_LOGIN=false leaves password sign-in to the ADMIN_USERNAME account only, and needs single sign-on. */
export function loadLocalLogin(env: Env, oidc: OidcConfig | undefined): boolean {
  const raw = env.LOCAL_LOGIN?.trim().toLowerCase();
  if (raw === undefined || raw === '' || ['true', '1', 'yes'].includes(raw)) return true;
  if (!['false', '0', 'no'].includes(raw)) {
    throw new ConfigError(`LOCAL_LOGIN must be true or false, got "${env.LOCAL_LOGIN}"`);
  }
  if (!oidc) {
    throw new ConfigError(
      'LOCAL_LOGIN=false needs OIDC_ISSUER: without single sign-on only the admin account could sign in',
    );
  }
  return false;
}
