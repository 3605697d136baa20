import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service';
import { queryRows } from '../../../database/query-rows';

export interface NewApiToken {
  name: string;
  tokenHash: string;
  permissions: string[];
  createdBy: string;
  expiresInDays: number;
}

export interface ApiTokenRow {
  id: string;
  name: string;
  permissions: string[];
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  createdBy: string | null;
}

/** A live token as the guard sees it: its permissions and its creator's role (the ceiling of what it may do). */
export interface LiveApiToken {
  id: string;
  name: string;
  permissions: string[];
  creatorId: string;
  creatorUsername: string;
  creatorEmail: string;
  creatorRole: string;
}

/** The one owner of `api_tokens`. A token is looked up by the SHA-256 of the presented value (unique index). */
@Injectable()
export class ApiTokenRepository {
  constructor(private readonly database: DatabaseService) {}

  async insert(token: NewApiToken): Promise<{ id: string; createdAt: Date; expiresAt: Date }> {
    const [row] = await queryRows<{ id: string; created_at: Date; expires_at: Date }>(
      this.database.manager,
      `INSERT INTO api_tokens (name, token_hash, permissions, created_by, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(days => $5)) RETURNING id, created_at, expires_at`,
      [token.name, token.tokenHash, token.permissions, token.createdBy, token.expiresInDays],
    );
    return { id: row.id, createdAt: row.created_at, expiresAt: row.expires_at };
  }

  /** Tokens not revoked, newest first (expired ones too: the list shows them as expired until revoked). */
  list(): Promise<ApiTokenRow[]> {
    return queryRows<ApiTokenRow>(
      this.database.manager,
      `SELECT t.id, t.name, t.permissions, t.created_at AS "createdAt", t.expires_at AS "expiresAt",
              t.last_used_at AS "lastUsedAt", u.username AS "createdBy"
         FROM api_tokens t LEFT JOIN admin_users u ON u.id = t.created_by
        WHERE t.revoked_at IS NULL
        ORDER BY t.created_at DESC, t.id`,
    );
  }

  /** Revokes a live token; false when there is no such token or it was revoked already. */
  async revoke(id: string): Promise<{ name: string } | null> {
    const [row] = await queryRows<{ name: string }>(
      this.database.manager,
      `UPDATE api_tokens SET revoked_at = now() WHERE id = $1 AND revoked_at IS NULL RETURNING name`,
      [id],
    );
    return row ?? null;
  }

  /**
   * The live token with this hash (not revoked, not expired, creator active), in one statement that also notes
   * `last_used_at` when the last note is more than a minute old: at most one write a minute per token.
   */
  async findLive(tokenHash: string): Promise<LiveApiToken | undefined> {
    const [row] = await queryRows<LiveApiToken>(
      this.database.manager,
      `WITH live AS (
         SELECT t.id, t.name, t.permissions, t.last_used_at, u.id AS "creatorId", u.username AS "creatorUsername",
                u.email AS "creatorEmail", u.role AS "creatorRole"
           FROM api_tokens t JOIN admin_users u ON u.id = t.created_by
          WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND u.is_active
       ), touched AS (
         UPDATE api_tokens SET last_used_at = now()
          WHERE id = (SELECT id FROM live) AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
       )
       SELECT id, name, permissions, "creatorId", "creatorUsername", "creatorEmail", "creatorRole" FROM live`,
      [tokenHash],
    );
    return row;
  }
}
