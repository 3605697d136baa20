import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';

/** The one owner of `admin_recovery_codes` (uq_admin_recovery_codes_user_hash serves every statement). */
@Injectable()
export class AdminRecoveryCodeRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Replaces the user's codes with these hashes (the old set stops working in the same transaction). */
  async replace(adminUserId: string, codeHashes: string[]): Promise<void> {
    const db = this.database.current;
    await db.query(`DELETE FROM admin_recovery_codes WHERE admin_user_id = $1`, [adminUserId]);
    await db.query(`INSERT INTO admin_recovery_codes (admin_user_id, code_hash) SELECT $1, unnest($2::varchar[])`, [
      adminUserId,
      codeHashes,
    ]);
  }

  async deleteAllOf(adminUserId: string): Promise<void> {
    const db = this.database.current;
    await db.query(`DELETE FROM admin_recovery_codes WHERE admin_user_id = $1`, [adminUserId]);
  }

  /**
   * Spends an unused code: one conditional UPDATE, so of concurrent sign-ins with the same code exactly one
   * wins. Answers how many unused codes are left, or null when the code is unknown or spent.
   */
  async spend(adminUserId: string, codeHash: string): Promise<number | null> {
    const [row] = await queryRows<{ left: number }>(
      this.database.manager,
      `WITH spent AS (
         UPDATE admin_recovery_codes SET used_at = now()
          WHERE admin_user_id = $1 AND code_hash = $2 AND used_at IS NULL
          RETURNING id
       )
       SELECT (SELECT count(*)::int FROM admin_recovery_codes
                WHERE admin_user_id = $1 AND used_at IS NULL) - 1 AS left
         FROM spent`,
      [adminUserId, codeHash],
    );
    return row ? row.left : null;
  }
}
