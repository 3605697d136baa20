import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../../database/database.service';
import { queryRows } from '../../../database/query-rows';

export interface NewHandoff {
  codeHash: string;
  browserHash: string;
  adminUserId: string;
  details: Record<string, unknown>;
  expiresAt: Date;
  /** The Clock's now: hand-offs that expired before it are deleted with this insert. */
  now: Date;
}

export interface SpentHandoff {
  browserHash: string;
  adminUserId: string;
  details: Record<string, unknown>;
  expiresAt: Date;
}

/** The one owner of `oidc_handoffs` (single sign-on's one-time codes, docs/auth.md "Hand-over to the console"). */
@Injectable()
export class OidcHandoffRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Stores a new hand-off; the expired ones of every browser go in the same statement (no retention job needed). */
  async insert(handoff: NewHandoff): Promise<void> {
    await this.database.current.query(
      `WITH expired AS (DELETE FROM oidc_handoffs WHERE expires_at <= $6)
       INSERT INTO oidc_handoffs (code_hash, browser_hash, admin_user_id, details, expires_at)
       VALUES ($1, $2, $3, $4, $5)`,
      [
        handoff.codeHash,
        handoff.browserHash,
        handoff.adminUserId,
        JSON.stringify(handoff.details),
        handoff.expiresAt,
        handoff.now,
      ],
    );
  }

  /**
   * Spends the code, whatever else the request carries: one DELETE, so of any number of exchanges of one code at
   * most one gets its row, and a code is never accepted twice. Undefined when unknown or already spent.
   */
  async spend(codeHash: string): Promise<SpentHandoff | undefined> {
    const [row] = await queryRows<SpentHandoff>(
      this.database.current,
      `DELETE FROM oidc_handoffs WHERE code_hash = $1
       RETURNING browser_hash AS "browserHash", admin_user_id AS "adminUserId", details, expires_at AS "expiresAt"`,
      [codeHash],
    );
    return row;
  }
}
