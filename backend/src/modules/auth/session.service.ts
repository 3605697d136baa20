import { Inject, Injectable } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { createHash, randomBytes } from 'crypto';
import { DataSource, EntityManager } from 'typeorm';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AuthUser } from '../../common/decorators/current-user.decorator';
import { AccessTokenPayload } from './access-token';
import { permissionsOf } from '../../common/permissions';
import { RequestMeta } from '../../common/utils/request-actor';
import { queryRows } from '../../common/utils/sql';

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
 * refresh token rotates on every use and a spent one presented again revokes the session (theft signal).
 */
@Injectable()
export class SessionService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly jwt: JwtService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The signed-in user behind an access token, or null when the token or its session is not valid. */
  async verifyAccessToken(token: string): Promise<AuthUser | null> {
    let payload: AccessTokenPayload;
    try {
      // algorithms pinned: `alg:none` and any other algorithm are refused by jsonwebtoken.
      payload = await this.jwt.verifyAsync<AccessTokenPayload>(token, {
        secret: this.config.jwtSecret,
        algorithms: ['HS256'],
      });
    } catch {
      return null;
    }
    if (payload.typ !== 'access' || typeof payload.sid !== 'string' || typeof payload.sub !== 'string') return null;
    if (!UUID.test(payload.sid) || !UUID.test(payload.sub)) return null;
    // One primary-key lookup per request: the session must be live and its user active.
    const rows: { id: string; username: string; email: string; role: string }[] = await this.dataSource.query(
      `SELECT u.id, u.username, u.email, u.role
         FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
        WHERE s.id = $1 AND s.admin_user_id = $2 AND s.is_active AND s.expires_at > now() AND u.is_active`,
      [payload.sid, payload.sub],
    );
    if (!rows.length) return null;
    const user = rows[0];
    return { ...user, permissions: permissionsOf(user.role), sessionId: payload.sid };
  }

  async create(adminUserId: string, meta: RequestMeta, manager: EntityManager = this.dataSource.manager): Promise<IssuedTokens> {
    const refreshToken = newRefreshToken();
    const [session] = await manager.query(
      `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, ip_address, user_agent, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6)) RETURNING id`,
      [
        adminUserId,
        randomBytes(24).toString('base64url'),
        hashRefreshToken(refreshToken),
        meta.ipAddress.slice(0, 45) || null,
        meta.userAgent,
        this.config.sessionTtlHours,
      ],
    );
    return { accessToken: await this.signAccessToken(adminUserId, session.id), refreshToken, sessionId: session.id };
  }

  /** Rotates a refresh token. The conditional UPDATE settles concurrent use: only one caller wins. */
  async refresh(refreshToken: string, meta: RequestMeta): Promise<RefreshOutcome> {
    const presented = hashRefreshToken(refreshToken);
    const next = newRefreshToken();
    const [rotated] = await queryRows<{ id: string; admin_user_id: string }>(
      this.dataSource.manager,
      `UPDATE admin_sessions s
          SET refresh_token = $2, previous_refresh_token = s.refresh_token, last_used_at = now(),
              expires_at = now() + make_interval(hours => $3), ip_address = $4, user_agent = $5
         FROM admin_users u
        WHERE s.refresh_token = $1 AND s.is_active AND s.expires_at > now()
          AND u.id = s.admin_user_id AND u.is_active
        RETURNING s.id, s.admin_user_id`,
      [presented, hashRefreshToken(next), this.config.sessionTtlHours, meta.ipAddress.slice(0, 45) || null, meta.userAgent],
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
    const [reused] = await queryRows<{ id: string; admin_user_id: string }>(
      this.dataSource.manager,
      `UPDATE admin_sessions SET is_active = false WHERE previous_refresh_token = $1 RETURNING id, admin_user_id`,
      [presented],
    );
    if (reused) return { kind: 'reused', sessionId: reused.id, adminUserId: reused.admin_user_id };
    return { kind: 'invalid' };
  }

  async revoke(sessionId: string): Promise<void> {
    await this.dataSource.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
  }

  /** Ends every session of a user, except `keepSessionId` when given. Returns how many were ended. */
  async revokeAllOf(adminUserId: string, keepSessionId?: string, manager: EntityManager = this.dataSource.manager): Promise<number> {
    const rows = await queryRows(
      manager,
      `UPDATE admin_sessions SET is_active = false
        WHERE admin_user_id = $1 AND is_active AND ($2::uuid IS NULL OR id <> $2::uuid) RETURNING id`,
      [adminUserId, keepSessionId ?? null],
    );
    return rows.length;
  }

  private signAccessToken(adminUserId: string, sessionId: string): Promise<string> {
    const payload: AccessTokenPayload = { sub: adminUserId, sid: sessionId, typ: 'access' };
    return this.jwt.signAsync(payload, { secret: this.config.jwtSecret, algorithm: 'HS256', expiresIn: ACCESS_TOKEN_TTL });
  }
}

function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}
