import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHash, randomBytes } from 'crypto';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { Clock } from '../../common/clock';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { AccessTokenPayload } from './access-token';
import { permissionsOf } from '../../common/permissions';
import { RequestMeta } from '../../common/utils/request-actor';
import { AdminSessionRepository, OwnSession, SessionPolicy } from './admin-session.repository';

export const ACCESS_TOKEN_TTL = '15m';
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export interface IssuedTokens {
  accessToken: string;
  refreshToken: string;
  sessionId: string;
}

export type RefreshOutcome =
  | { kind: 'rotated'; tokens: IssuedTokens; adminUserId: string }
  | { kind: 'reused'; sessionId: string; adminUserId: string }
  | { kind: 'invalid' };

/** Refresh tokens are stored as their SHA-256 only: a database leak does not hand out sessions. */
export function hashRefreshToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

/**
 * Admin sessions: one `admin_sessions` row per sign-in. The access token (JWT HS256, 15 minutes) names
 * the session; every request re-reads it, so revoking the row stops its tokens at once. The opaque
 * refresh token rotates on every use and any spent one of the session presented again revokes the session
 * (theft signal); a session ends SESSION_MAX_HOURS after sign-in whatever the refreshes. With LOCAL_LOGIN=false the
 * sessions of local accounts (no single sign-on identity, not ADMIN_USERNAME) are refused, access and refresh alike,
 * from the first request after the switch: they were opened by the password sign-in that is now off.
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly sessions: AdminSessionRepository,
    private readonly jwt: JwtService,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The signed-in user behind an access token, or null when the token or its session is not valid. */
  async verifyAccessToken(token: string): Promise<AuthUser | null> {
    let payload: AccessTokenPayload;
    try {
      // algorithms pinned: `alg:none` and any other algorithm are refused by jsonwebtoken.
      payload = await this.jwt.verifyAsync<AccessTokenPayload>(token, {
        algorithms: ['HS256'],
      });
    } catch {
      return null;
    }
    if (payload.typ !== 'access' || typeof payload.sid !== 'string' || typeof payload.sub !== 'string') return null;
    if (!UUID.test(payload.sid) || !UUID.test(payload.sub)) return null;
    // The session must be live and its user active.
    const user = await this.sessions.findLiveUser(payload.sid, payload.sub, this.policy);
    if (!user) return null;
    return { ...user, permissions: permissionsOf(user.role), sessionId: payload.sid };
  }

  /** Of these session ids, the ones still live (active, unexpired, user active). */
  liveSessionIds(sessionIds: string[]): Promise<string[]> {
    return this.sessions.liveIds(sessionIds, this.policy);
  }

  async create(adminUserId: string, meta: RequestMeta): Promise<IssuedTokens> {
    const refreshToken = newRefreshToken();
    const sessionId = await this.sessions.insert({
      adminUserId,
      token: randomBytes(24).toString('base64url'),
      refreshTokenHash: hashRefreshToken(refreshToken),
      ipAddress: meta.ipAddress.slice(0, 45) || null,
      userAgent: meta.userAgent,
      ttlHours: this.config.sessionTtlHours,
      maxHours: this.config.sessionMaxHours,
    });
    return { accessToken: await this.signAccessToken(adminUserId, sessionId), refreshToken, sessionId };
  }

  /** Rotates a refresh token. The conditional UPDATE settles concurrent use: only one caller wins. */
  async refresh(refreshToken: string, meta: RequestMeta): Promise<RefreshOutcome> {
    const presented = hashRefreshToken(refreshToken);
    const next = newRefreshToken();
    const rotated = await this.sessions.rotateRefreshToken(
      presented,
      hashRefreshToken(next),
      { ttlHours: this.config.sessionTtlHours, maxHours: this.config.sessionMaxHours, now: this.clock.now() },
      meta.ipAddress.slice(0, 45) || null,
      meta.userAgent,
      this.policy,
    );
    if (rotated) {
      return {
        kind: 'rotated',
        adminUserId: rotated.admin_user_id,
        tokens: {
          accessToken: await this.signAccessToken(rotated.admin_user_id, rotated.id),
          refreshToken: next,
          sessionId: rotated.id,
        },
      };
    }
    const reused = await this.sessions.revokeBySpentRefreshToken(presented);
    if (reused) return { kind: 'reused', sessionId: reused.id, adminUserId: reused.admin_user_id };
    return { kind: 'invalid' };
  }

  /** The user's live sessions, the one of this request marked `current`. */
  async listOwn(adminUserId: string, currentSessionId: string): Promise<Array<OwnSession & { current: boolean }>> {
    const sessions = await this.sessions.listLive(adminUserId);
    return sessions.map((s) => ({
      id: s.id,
      current: s.id === currentSessionId,
      createdAt: s.createdAt,
      lastUsedAt: s.lastUsedAt,
      ip: s.ip,
      userAgent: s.userAgent,
    }));
  }

  /** Ends one of the user's own live sessions; false when there is no such session of theirs. */
  revokeOwn(adminUserId: string, sessionId: string): Promise<boolean> {
    return this.sessions.revokeOwn(adminUserId, sessionId);
  }

  revoke(sessionId: string): Promise<void> {
    return this.sessions.revoke(sessionId);
  }

  /** Ends every session of a user, except `keepSessionId` when given. Returns how many were ended. */
  revokeAllOf(adminUserId: string, keepSessionId?: string): Promise<number> {
    return this.sessions.revokeAllOf(adminUserId, keepSessionId);
  }

  /** Whose sessions count (LOCAL_LOGIN, ADMIN_USERNAME). */
  private get policy(): SessionPolicy {
    return { localLogin: this.config.localLogin, breakGlassUsername: this.config.adminUsername };
  }

  private signAccessToken(adminUserId: string, sessionId: string): Promise<string> {
    const payload: AccessTokenPayload = { sub: adminUserId, sid: sessionId, typ: 'access' };
    return this.jwt.signAsync(payload, {
      algorithm: 'HS256',
      expiresIn: ACCESS_TOKEN_TTL,
    });
  }
}

function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}
