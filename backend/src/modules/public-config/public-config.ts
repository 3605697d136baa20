import type { AppConfig } from '../../config/app-config';

/** What the public pages show from the configuration: `GET /api/public-config`, also written into every page served. */
export interface PublicConfig {
  supportEmail: string;
  companyName: string;
  companyAddress: string;
  /** "Sign in with <ssoDisplayName>" on the login page; null when single sign-on is off. */
  ssoDisplayName: string | null;
}

export function publicConfigOf(config: AppConfig): PublicConfig {
  return {
    supportEmail: config.supportEmail,
    companyName: config.companyName,
    companyAddress: config.companyAddress,
    ssoDisplayName: config.oidc?.displayName ?? null,
  };
}
