import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { deleteBatch, queryRows } from '../../database/query-rows';

/** The one owner of `admin_attempts` (idx_admin_attempts_user_kind serves every count). */
@Injectable()
export class AdminAttemptRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Records a `pending` attempt of the kind unless the user already has `limit` counted ones within the
   * window; returns its id, or null when the limit is reached. The user's row is locked for the count and
   * the insert, so concurrent requests of one user (on any instance) cannot exceed the limit.
   */
  claim(adminUserId: string, kind: string, limit: number, windowMinutes: number): Promise<string | null> {
    return this.database.transaction(async (db) => {
      await db.query(`SELECT 1 FROM admin_users WHERE id = $1 FOR UPDATE`, [adminUserId]);
      const [{ n }] = await queryRows<{ n: number }>(
        db,
        `SELECT count(*)::int AS n FROM admin_attempts
          WHERE admin_user_id = $1 AND kind = $2 AND created_at > now() - make_interval(mins => $3)`,
        [adminUserId, kind, windowMinutes],
      );
      if (n >= limit) return null;
      const [row] = await queryRows<{ id: string }>(
        db,
        `INSERT INTO admin_attempts (admin_user_id, kind) VALUES ($1, $2) RETURNING id`,
        [adminUserId, kind],
      );
      return row.id;
    });
  }

  /** Settles an attempt: kept with this outcome (it keeps counting). */
  async settle(id: string, outcome: 'failure' | 'done'): Promise<void> {
    await this.database.manager.query(`UPDATE admin_attempts SET outcome = $2 WHERE id = $1`, [id, outcome]);
  }

  /** Gives an attempt back (a right answer does not count against the user). */
  async release(id: string): Promise<void> {
    await this.database.manager.query(`DELETE FROM admin_attempts WHERE id = $1`, [id]);
  }

  /**
   * Retention: attempts older than `hours` count towards no window any more (the longest is an hour); the
   * security audit log keeps the events themselves. Answers how many rows went.
   */
  async deleteOlderThan(hours: number, limit: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'admin_attempts',
      'created_at < now() - make_interval(hours => $1)',
      [hours],
      limit,
    );
  }
}
