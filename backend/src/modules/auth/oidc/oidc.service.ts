import { Inject, Injectable } from '@nestjs/common';
import { randomBytes } from 'crypto';
import { APP_CONFIG, AppConfig } from '../../../config/app-config';
import { RequestMeta } from '../../../common/utils/request-actor';
import { DatabaseService } from '../../../database/database.service';
import { AdminUserRepository } from '../admin-user.repository';
import { AdminUser } from '../entities/admin-user.entity';
import { hashPassword } from '../password';
import { USERNAME_PATTERN } from '../password-policy';
import { SessionService } from '../session.service';
import { admit, NotAdmitted, verifiedEmail } from './admission';
import { claimAt, ProviderIdentity } from './oidc-client.service';
import { DomainEvents } from '../../../events/domain-events.service';

/** Why a sign-in through the provider was refused; the login page shows the matching text. */
export type SsoRefusal = NotAdmitted | 'inactive' | 'failed' | 'unavailable';

/** A role no matrix entry has: an account whose provider groups map to nothing can do nothing (docs/product.md). */
export const NO_ROLE = 'none';

export class SsoRefused extends Error {
  constructor(
    readonly refusal: SsoRefusal,
    readonly reason: string,
    readonly adminUserId: string | null = null,
  ) {
    super(reason);
  }
}

/** A sign-in the provider vouched for and this service admitted: the account, and the facts for its audit row. */
export interface AdmittedSignIn {
  adminUserId: string;
  details: Record<string, unknown>;
}

/**
 * Staff sign-in through the company's OpenID provider (docs/auth.md "Single sign-on"): the account is found by
 * issuer + subject (created at the first sign-in), its role is the one the configured claim maps to at this
 * sign-in (identity-like claims only when verified, `admission.ts`), and the session, opened when the console
 * exchanges the callback's one-time code (`oidc-handoff.service.ts`), is a normal one.
 */
@Injectable()
export class OidcService {
  constructor(
    private readonly database: DatabaseService,
    private readonly users: AdminUserRepository,
    private readonly sessions: SessionService,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Admits the identity (its account created or its role updated); throws SsoRefused (audited) otherwise. */
  async signIn(identity: ProviderIdentity, meta: RequestMeta): Promise<AdmittedSignIn> {
    const oidc = this.config.oidc!;
    const admission = admit(identity.claims, oidc);
    const details = { issuer: identity.issuer, subject: identity.subject, roleClaim: oidc.roleClaim };
    let user = await this.users.findByOidcIdentity(identity.issuer, identity.subject);
    if ('refusal' in admission) {
      if (user) {
        // The provider took the group away (or no longer vouches for the claim): the account loses its role and
        // every session at once.
        await this.database.transaction(async () => {
          await this.users.setRole(user!.id, NO_ROLE);
          await this.sessions.revokeAllOf(user!.id);
        });
      }
      return this.refuse(admission.refusal, admission.reason, user?.id ?? null, meta, {
        ...details,
        claimValue: claimSummary(identity, oidc.roleClaim),
        ...(admission.refusal !== 'no-role' && { emailVerified: identity.claims.email_verified ?? null }),
        ...(admission.refusal === 'domain' && { hd: identity.claims.hd ?? null }),
      });
    }
    const { role } = admission;
    let created = false;
    if (!user) {
      user = await this.createAccount(identity, role);
      created = true;
    }
    if (!user.isActive) await this.refuse('inactive', 'inactive account', user.id, meta, details);
    await this.users.setRole(user.id, role);
    return {
      adminUserId: user.id,
      details: { method: 'oidc', ...details, role, previousRole: created ? null : user.role, accountCreated: created },
    };
  }

  /** A refused sign-in the provider vouched for (or one whose state was ours): audited, then thrown. */
  async refuse(
    refusal: SsoRefusal,
    reason: string,
    adminUserId: string | null,
    meta: RequestMeta,
    details: Record<string, unknown> = {},
  ): Promise<never> {
    await this.events.publish('login.sso-failure', {
      success: false,
      adminUserId,
      resource: 'admin_sessions',
      ...meta,
      details: { reason, ...details },
    });
    throw new SsoRefused(refusal, reason, adminUserId);
  }

  /**
   * The first sign-in of an identity creates its staff account. The username comes from the provider's
   * preferred_username or verified e-mail; when a local account (or another identity) has it, a suffix is added: an
   * identity never takes over an existing account by name (docs/product.md). The e-mail is the provider's only when
   * it is verified (`email_verified: true`). The password is random and never shown: the account signs in through
   * the provider.
   */
  private async createAccount(identity: ProviderIdentity, role: string): Promise<AdminUser> {
    const base = usernameFrom(identity.claims);
    const claimedEmail = verifiedEmail(identity.claims);
    const { hash, salt } = await hashPassword(randomBytes(32).toString('base64url'));
    for (let attempt = 0; attempt < 6; attempt++) {
      const username = attempt === 0 ? base : `${base.slice(0, 40)}_${randomBytes(3).toString('hex')}`;
      const email = claimedEmail && attempt < 2 ? claimedEmail : `${username.toLowerCase()}@localhost`;
      const id = await this.users.insertIfAbsent({
        username,
        email,
        passwordHash: hash,
        salt,
        role,
        oidcIssuer: identity.issuer,
        oidcSubject: identity.subject,
      });
      // Either this insert or a concurrent first sign-in of the same identity created it.
      const user = await this.users.findByOidcIdentity(identity.issuer, identity.subject);
      if (user) return user;
      if (id) break;
    }
    throw new Error('could not create a staff account for the identity');
  }
}

function usernameFrom(claims: Record<string, unknown>): string {
  const source =
    [claims.preferred_username, verifiedEmail(claims), claims.name].find(
      (v): v is string => typeof v === 'string' && v.trim() !== '',
    ) ?? 'staff';
  let name = source
    .split('@')[0]
    .replace(/[^A-Za-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 50);
  if (name.length < 3) name = `sso_${name}`.slice(0, 50).padEnd(3, '_');
  return USERNAME_PATTERN.test(name) ? name : 'staff';
}

/** What the role claim held, for the audit row (cut short: a user may be in hundreds of groups). */
function claimSummary(identity: ProviderIdentity, path: string): unknown {
  const raw = claimAt(identity.claims, path);
  return Array.isArray(raw) ? raw.slice(0, 20) : (raw ?? null);
}
