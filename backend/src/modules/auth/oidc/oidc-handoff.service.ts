import { Injectable, UnauthorizedException } from '@nestjs/common';
import { createHash, randomBytes, timingSafeEqual } from 'crypto';
import { Clock } from '../../../common/clock';
import { RequestMeta } from '../../../common/utils/request-actor';
import { DatabaseService } from '../../../database/database.service';
import { DomainEvents } from '../../../events/domain-events.service';
import { AdminUserRepository } from '../admin-user.repository';
import { LoginResponse } from '../dto/auth-responses.dto';
import { SessionService } from '../session.service';
import { OidcHandoffRepository } from './oidc-handoff.repository';
import { AdmittedSignIn, NO_ROLE } from './oidc.service';

/** The longest a hand-off code lives: the console exchanges it the moment the login page loads. */
export const HANDOFF_SECONDS = 60;

export const HANDOFF_REFUSED = 'Invalid or expired single sign-on code. Please sign in again.';

/** What the callback gives the browser: the code for the login page's fragment, the key for the cookie. */
export interface IssuedHandoff {
  code: string;
  browserKey: string;
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The single sign-on hand-off (docs/auth.md "Hand-over to the console"). The callback stores a one-time code bound
 * to the browser's cookie (both 32 random bytes, kept as SHA-256) instead of putting a session's token into the
 * redirect; the console posts the code, the cookie goes along, and only the pair opens the session. Neither value
 * alone opens anything, and the code is spent by its first presentation.
 */
@Injectable()
export class OidcHandoffService {
  constructor(
    private readonly database: DatabaseService,
    private readonly handoffs: OidcHandoffRepository,
    private readonly users: AdminUserRepository,
    private readonly sessions: SessionService,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
  ) {}

  async issue(signIn: AdmittedSignIn): Promise<IssuedHandoff> {
    const code = randomBytes(32).toString('base64url');
    const browserKey = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    await this.handoffs.insert({
      codeHash: sha256(code),
      browserHash: sha256(browserKey),
      adminUserId: signIn.adminUserId,
      details: signIn.details,
      expiresAt: new Date(now.getTime() + HANDOFF_SECONDS * 1000),
      now,
    });
    return { code, browserKey };
  }

  /**
   * The console's exchange: the code with the cookie of the browser it was issued to, unexpired, unspent, for an
   * account still active, opens a normal session (`login.success` audit row). Anything else is 401 HANDOFF_REFUSED
   * with nothing issued; a known code refused (no or another cookie, expired) is audited as `login.sso-failure`.
   */
  async exchange(code: string, browserKey: string | undefined, meta: RequestMeta): Promise<LoginResponse> {
    const handoff = await this.handoffs.spend(sha256(code));
    if (!handoff) throw new UnauthorizedException(HANDOFF_REFUSED);
    const refused = async (reason: string): Promise<never> => {
      await this.events.publish('login.sso-failure', {
        success: false,
        adminUserId: handoff.adminUserId,
        resource: 'admin_sessions',
        ...meta,
        details: { reason, issuer: handoff.details.issuer, subject: handoff.details.subject },
      });
      throw new UnauthorizedException(HANDOFF_REFUSED);
    };
    if (!browserKey || !sameHash(sha256(browserKey), handoff.browserHash)) {
      await refused('hand-off code presented without the cookie of the browser it was issued to');
    }
    if (new Date(handoff.expiresAt).getTime() <= this.clock.now().getTime()) {
      await refused(`hand-off code expired (${HANDOFF_SECONDS} s)`);
    }
    const user = await this.users.findById(handoff.adminUserId);
    if (!user || !user.isActive || user.role === NO_ROLE) await refused('account inactive or without a role');
    const issued = await this.database.transaction(async () => {
      await this.users.recordLogin(handoff.adminUserId);
      const tokens = await this.sessions.create(handoff.adminUserId, meta);
      await this.events.publish('login.success', {
        success: true,
        adminUserId: handoff.adminUserId,
        resource: 'admin_sessions',
        resourceId: tokens.sessionId,
        ...meta,
        details: handoff.details,
      });
      return tokens;
    });
    return { accessToken: issued.accessToken, refreshToken: issued.refreshToken, requiresTwoFactor: false };
  }
}

function sameHash(a: string, b: string): boolean {
  return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
}
