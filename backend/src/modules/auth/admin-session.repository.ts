import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { deleteBatch, queryRows } from '../../database/query-rows';

export interface NewSession {
  adminUserId: string;
  token: string;
  refreshTokenHash: string;
  ipAddress: string | null;
  userAgent: string | null;
  ttlHours: number;
  /** SESSION_MAX_HOURS: the session never lives longer, whatever the refreshes. */
  maxHours: number;
}

/** A live session as its owner sees it in the Security screen. */
export interface OwnSession {
  id: string;
  createdAt: Date;
  lastUsedAt: Date;
  ip: string | null;
  userAgent: string | null;
}

export interface SessionOwner {
  id: string;
  admin_user_id: string;
}

/**
 * Whose sessions may be used: with LOCAL_LOGIN=false (`localLogin` false) only accounts linked to the single sign-on
 * provider and the break-glass account (ADMIN_USERNAME); every other account is local, and its sessions are refused.
 */
export interface SessionPolicy {
  localLogin: boolean;
  breakGlassUsername: string;
}

/** The SQL of SessionPolicy on `admin_users u`, its two values at parameters `$<at>` and `$<at + 1>`. */
const allowedBy = (at: number) => `($${at}::boolean OR u.oidc_subject IS NOT NULL OR u.username = $${at + 1})`;
const policyValues = (policy: SessionPolicy) => [policy.localLogin, policy.breakGlassUsername];

/** The one owner of `admin_sessions`. Every lookup is by primary key or a unique/indexed token. */
@Injectable()
export class AdminSessionRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * The user of a live session (active, unexpired, user active and allowed by `policy`): one primary-key lookup per
   * request.
   */
  async findLiveUser(
    sessionId: string,
    adminUserId: string,
    policy: SessionPolicy,
  ): Promise<{ id: string; username: string; email: string; role: string } | undefined> {
    const [user] = await this.database.manager.query(
      `SELECT u.id, u.username, u.email, u.role
         FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
        WHERE s.id = $1 AND s.admin_user_id = $2 AND s.is_active AND s.expires_at > now() AND u.is_active
          AND ${allowedBy(3)}`,
      [sessionId, adminUserId, ...policyValues(policy)],
    );
    return user;
  }

  /** Of these session ids, the ones still live as findLiveUser says (the socket gateway's periodic re-check). */
  async liveIds(sessionIds: string[], policy: SessionPolicy): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT s.id FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
        WHERE s.id = ANY($1::uuid[]) AND s.is_active AND s.expires_at > now() AND u.is_active AND ${allowedBy(2)}`,
      [sessionIds, ...policyValues(policy)],
    );
    return rows.map((r) => r.id);
  }

  async insert(session: NewSession): Promise<string> {
    const db = this.database.current;
    const [row] = await db.query(
      `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, ip_address, user_agent, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => LEAST($6::int, $7::int))) RETURNING id`,
      [
        session.adminUserId,
        session.token,
        session.refreshTokenHash,
        session.ipAddress,
        session.userAgent,
        session.ttlHours,
        session.maxHours,
      ],
    );
    return row.id;
  }

  /**
   * Swaps the presented refresh token (its hash) for the next one and extends the session (sliding, never past
   * `created_at + maxHours`), when the session is live at `now`, younger than `maxHours` and its user active and
   * allowed by `policy`.
   * The spent hash joins the session's family (admin_session_spent_tokens) in the same statement.
   * Conditional: of concurrent callers exactly one wins. `now` is the application clock (tests fix it).
   */
  async rotateRefreshToken(
    presentedHash: string,
    nextHash: string,
    limits: { ttlHours: number; maxHours: number; now: Date },
    ipAddress: string | null,
    userAgent: string | null,
    policy: SessionPolicy,
  ): Promise<SessionOwner | undefined> {
    const [rotated] = await queryRows<SessionOwner>(
      this.database.manager,
      `WITH rotated AS (
         UPDATE admin_sessions s
            SET refresh_token = $2, last_used_at = $6,
                expires_at = LEAST($6 + make_interval(hours => $3), s.created_at + make_interval(hours => $7)),
                ip_address = $4, user_agent = $5
           FROM admin_users u
          WHERE s.refresh_token = $1 AND s.is_active AND s.expires_at > $6
            AND s.created_at + make_interval(hours => $7) > $6
            AND u.id = s.admin_user_id AND u.is_active AND ${allowedBy(8)}
          RETURNING s.id, s.admin_user_id
       ), spent AS (
         INSERT INTO admin_session_spent_tokens (token_hash, session_id, spent_at)
         SELECT $1, id, $6 FROM rotated ON CONFLICT DO NOTHING
       )
       SELECT id, admin_user_id FROM rotated`,
      [
        presentedHash,
        nextHash,
        limits.ttlHours,
        ipAddress,
        userAgent,
        limits.now,
        limits.maxHours,
        ...policyValues(policy),
      ],
    );
    return rotated;
  }

  /** Ends the session that once spent this refresh token, however long ago (the whole family is known). */
  async revokeBySpentRefreshToken(presentedHash: string): Promise<SessionOwner | undefined> {
    const [reused] = await queryRows<SessionOwner>(
      this.database.manager,
      `UPDATE admin_sessions s SET is_active = false
         FROM admin_session_spent_tokens t
        WHERE t.token_hash = $1 AND s.id = t.session_id
        RETURNING s.id, s.admin_user_id`,
      [presentedHash],
    );
    return reused;
  }

  /** The user's live sessions (active, unexpired), most recently used first (idx_admin_sessions_user). */
  listLive(adminUserId: string): Promise<OwnSession[]> {
    return queryRows<OwnSession>(
      this.database.manager,
      `SELECT id, created_at AS "createdAt", last_used_at AS "lastUsedAt", ip_address AS ip, user_agent AS "userAgent"
         FROM admin_sessions
        WHERE admin_user_id = $1 AND is_active AND expires_at > now()
        ORDER BY last_used_at DESC, created_at DESC`,
      [adminUserId],
    );
  }

  /** Ends one live session of this user; false when it is not theirs, not live, or unknown. */
  async revokeOwn(adminUserId: string, sessionId: string): Promise<boolean> {
    const rows = await queryRows(
      this.database.manager,
      `UPDATE admin_sessions SET is_active = false
        WHERE id = $1 AND admin_user_id = $2 AND is_active AND expires_at > now() RETURNING id`,
      [sessionId, adminUserId],
    );
    return rows.length > 0;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.database.manager.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
  }

  /** Ends every live session of a user, except `keepSessionId` when given. Returns how many were ended. */
  async revokeAllOf(adminUserId: string, keepSessionId?: string): Promise<number> {
    const db = this.database.current;
    const rows = await queryRows(
      db,
      `UPDATE admin_sessions SET is_active = false
        WHERE admin_user_id = $1 AND is_active AND ($2::uuid IS NULL OR id <> $2::uuid) RETURNING id`,
      [adminUserId, keepSessionId ?? null],
    );
    return rows.length;
  }

  /**
   * Retention: sessions that ended (expired, or revoked and past the expiry they had) more than `days` ago,
   * with their spent refresh tokens (ON DELETE CASCADE): a token of such a session can revoke nothing any
   * more. Sign-ins stay in the security audit log. Answers how many sessions went.
   */
  async deleteEndedBefore(days: number, limit: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'admin_sessions',
      'expires_at < now() - make_interval(days => $1)',
      [days],
      limit,
    );
  }
}
