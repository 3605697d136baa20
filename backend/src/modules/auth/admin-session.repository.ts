import { Injectable } from '@nestjs/common';
import { DatabaseService, Db } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';

export interface NewSession {
  adminUserId: string;
  token: string;
  refreshTokenHash: string;
  ipAddress: string | null;
  userAgent: string | null;
  ttlHours: number;
}

export interface SessionOwner {
  id: string;
  admin_user_id: string;
}

/** The one owner of `admin_sessions`. Every lookup is by primary key or a unique/indexed token. */
@Injectable()
export class AdminSessionRepository {
  constructor(private readonly database: DatabaseService) {}

  /** The user of a live session (active, unexpired, user active): one primary-key lookup per request. */
  async findLiveUser(sessionId: string, adminUserId: string): Promise<{ id: string; username: string; email: string; role: string } | undefined> {
    const [user] = await this.database.manager.query(
      `SELECT u.id, u.username, u.email, u.role
         FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
        WHERE s.id = $1 AND s.admin_user_id = $2 AND s.is_active AND s.expires_at > now() AND u.is_active`,
      [sessionId, adminUserId],
    );
    return user;
  }

  /** Of these session ids, the ones still live (the socket gateway's periodic re-check). */
  async liveIds(sessionIds: string[]): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT s.id FROM admin_sessions s JOIN admin_users u ON u.id = s.admin_user_id
        WHERE s.id = ANY($1::uuid[]) AND s.is_active AND s.expires_at > now() AND u.is_active`,
      [sessionIds],
    );
    return rows.map((r) => r.id);
  }

  async insert(session: NewSession, db: Db = this.database.manager): Promise<string> {
    const [row] = await db.query(
      `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, ip_address, user_agent, expires_at)
       VALUES ($1, $2, $3, $4, $5, now() + make_interval(hours => $6)) RETURNING id`,
      [session.adminUserId, session.token, session.refreshTokenHash, session.ipAddress, session.userAgent, session.ttlHours],
    );
    return row.id;
  }

  /**
   * Swaps the presented refresh token (its hash) for the next one and extends the session, when the session
   * is live and its user active. Conditional: of concurrent callers exactly one wins.
   */
  async rotateRefreshToken(
    presentedHash: string,
    nextHash: string,
    ttlHours: number,
    ipAddress: string | null,
    userAgent: string | null,
  ): Promise<SessionOwner | undefined> {
    const [rotated] = await queryRows<SessionOwner>(
      this.database.manager,
      `UPDATE admin_sessions s
          SET refresh_token = $2, previous_refresh_token = s.refresh_token, last_used_at = now(),
              expires_at = now() + make_interval(hours => $3), ip_address = $4, user_agent = $5
         FROM admin_users u
        WHERE s.refresh_token = $1 AND s.is_active AND s.expires_at > now()
          AND u.id = s.admin_user_id AND u.is_active
        RETURNING s.id, s.admin_user_id`,
      [presentedHash, nextHash, ttlHours, ipAddress, userAgent],
    );
    return rotated;
  }

  /** Ends the session whose last spent refresh token this is (idx_admin_sessions_previous_refresh). */
  async revokeBySpentRefreshToken(presentedHash: string): Promise<SessionOwner | undefined> {
    const [reused] = await queryRows<SessionOwner>(
      this.database.manager,
      `UPDATE admin_sessions SET is_active = false WHERE previous_refresh_token = $1 RETURNING id, admin_user_id`,
      [presentedHash],
    );
    return reused;
  }

  async revoke(sessionId: string): Promise<void> {
    await this.database.manager.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
  }

  /** Ends every live session of a user, except `keepSessionId` when given. Returns how many were ended. */
  async revokeAllOf(adminUserId: string, keepSessionId?: string, db: Db = this.database.manager): Promise<number> {
    const rows = await queryRows(
      db,
      `UPDATE admin_sessions SET is_active = false
        WHERE admin_user_id = $1 AND is_active AND ($2::uuid IS NULL OR id <> $2::uuid) RETURNING id`,
      [adminUserId, keepSessionId ?? null],
    );
    return rows.length;
  }
}
