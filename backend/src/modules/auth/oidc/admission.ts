import { EMAIL_CLAIM, OidcConfig, USERNAME_CLAIMS } from '../../../config/oidc-config';
import { mapRole } from './oidc-client.service';

/** Why the provider's identity gets no role here (the login page shows the matching text). */
export type NotAdmitted = 'no-role' | 'unverified' | 'domain';

export type Admission = { role: string } | { refusal: NotAdmitted; reason: string };

type AdmissionRules = Pick<OidcConfig, 'roleClaim' | 'roles' | 'allowedDomains' | 'trustUsernameClaims'>;

const ADDRESS = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/** The provider's e-mail (lower-cased) when the provider vouches for it (`email_verified: true`), else null. */
export function verifiedEmail(claims: Record<string, unknown>): string | null {
  const { email } = claims;
  if (claims.email_verified !== true || typeof email !== 'string' || !ADDRESS.test(email)) return null;
  return email.toLowerCase();
}

/**
 * Who may sign in, and as what (docs/auth.md "Which claims may grant a role"). An identity-like role claim counts
 * only when verified: `email` needs `email_verified: true`, a username claim the operator's OIDC_TRUST_USERNAME_CLAIMS
 * (start-up refuses it otherwise; checked again here). With OIDC_ALLOWED_DOMAINS, Google's `hd` or the verified
 * e-mail's domain must be one of them. Then the highest role whose value the claim holds.
 */
export function admit(claims: Record<string, unknown>, rules: AdmissionRules): Admission {
  if (rules.roleClaim === EMAIL_CLAIM && claims.email_verified !== true) {
    return { refusal: 'unverified', reason: 'the role claim email is not verified by the provider (email_verified)' };
  }
  if (USERNAME_CLAIMS.includes(rules.roleClaim) && !rules.trustUsernameClaims) {
    return { refusal: 'unverified', reason: `the role claim ${rules.roleClaim} is not trusted` };
  }
  if (rules.allowedDomains.length > 0) {
    const hd = typeof claims.hd === 'string' ? claims.hd.toLowerCase() : null;
    const email = verifiedEmail(claims);
    const domain = email ? email.slice(email.lastIndexOf('@') + 1) : null;
    if (!(hd && rules.allowedDomains.includes(hd)) && !(domain && rules.allowedDomains.includes(domain))) {
      return { refusal: 'domain', reason: 'neither hd nor a verified e-mail is of an allowed domain' };
    }
  }
  const role = mapRole(claims, rules);
  return role ? { role } : { refusal: 'no-role', reason: 'no configured role in the role claim' };
}
