import { Inject, Injectable, Logger } from '@nestjs/common';
import * as client from 'openid-client';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { OidcConfig } from '../../../config/oidc-config';

/** What the browser carries between the redirect to the provider and the callback (signed cookie, 10 minutes). */
export interface PendingLogin {
  state: string;
  nonce: string;
  codeVerifier: string;
  redirectUri: string;
}

/** The verified outcome of a callback: who the provider says signed in, and the claims to read the role from. */
export interface ProviderIdentity {
  issuer: string;
  subject: string;
  claims: Record<string, unknown>;
}

/**
 * The OpenID Connect relying party, through the certified `openid-client` (v6): discovery (cached; a failed one is
 * tried again at the next sign-in), authorization code flow with PKCE S256, state and nonce. The ID token's
 * signature, issuer, audience, expiry and nonce are checked by the library.
 */
@Injectable()
export class OidcClientService {
  private readonly logger = new Logger(OidcClientService.name);
  private discovered?: Promise<client.Configuration>;

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  get settings(): OidcConfig | undefined {
    return this.config.oidc;
  }

  /** The provider's authorization URL for a new sign-in, and the secrets the callback will need. */
  async begin(redirectUri: string): Promise<{ url: URL; pending: PendingLogin }> {
    const configuration = await this.configuration();
    const pending: PendingLogin = {
      state: client.randomState(),
      nonce: client.randomNonce(),
      codeVerifier: client.randomPKCECodeVerifier(),
      redirectUri,
    };
    const url = client.buildAuthorizationUrl(configuration, {
      redirect_uri: redirectUri,
      scope: 'openid profile email',
      code_challenge: await client.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { url, pending };
  }

  /**
   * Checks the callback (state, issuer, code exchange with the PKCE verifier, ID token and nonce) and answers the
   * identity. The role claim is read from the ID token, else from the userinfo endpoint (providers that keep
   * groups out of the ID token). Throws on any failure.
   */
  async complete(query: string, pending: PendingLogin): Promise<ProviderIdentity> {
    const configuration = await this.configuration();
    const currentUrl = new URL(pending.redirectUri);
    currentUrl.search = query;
    const tokens = await client.authorizationCodeGrant(configuration, currentUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    const idClaims = tokens.claims();
    if (!idClaims) throw new Error('the provider sent no ID token');
    let claims: Record<string, unknown> = { ...idClaims };
    if (
      claimAt(claims, this.config.oidc!.roleClaim) === undefined &&
      configuration.serverMetadata().userinfo_endpoint
    ) {
      const userInfo = await client.fetchUserInfo(configuration, tokens.access_token, idClaims.sub);
      claims = { ...userInfo, ...claims };
    }
    return { issuer: idClaims.iss, subject: idClaims.sub, claims };
  }

  private configuration(): Promise<client.Configuration> {
    const oidc = this.config.oidc;
    if (!oidc) throw new Error('single sign-on is not configured');
    this.discovered ??= client
      .discovery(new URL(oidc.issuer), oidc.clientId, oidc.clientSecret, undefined, {
        execute: oidc.allowInsecure && oidc.issuer.startsWith('http:') ? [client.allowInsecureRequests] : [],
        timeout: 10,
      })
      .catch((err: unknown) => {
        this.discovered = undefined;
        this.logger.error(`OpenID discovery of ${oidc.issuer} failed: ${err instanceof Error ? err.message : err}`);
        throw err;
      });
    return this.discovered;
  }
}

/** The value at a claim path: `groups`, or `realm_access.roles` into nested objects. */
export function claimAt(claims: Record<string, unknown>, path: string): unknown {
  if (path in claims) return claims[path];
  let value: unknown = claims;
  for (const key of path.split('.')) {
    if (!value || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** The highest role whose configured value the claim holds (a list of values, or one string); null when none. */
export function mapRole(claims: Record<string, unknown>, oidc: Pick<OidcConfig, 'roleClaim' | 'roles'>): string | null {
  const raw = claimAt(claims, oidc.roleClaim);
  const values = new Set(
    (Array.isArray(raw) ? raw : raw === undefined || raw === null ? [] : [raw]).map((v) => String(v)),
  );
  return oidc.roles.find(({ value }) => values.has(value))?.role ?? null;
}
