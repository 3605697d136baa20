import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import { LOGIN_FAILURES_FORGOTTEN_HOURS, LockoutRule } from './login-lockout';

/**
 * The one owner of `unknown_login_names`: the sign-in counters of usernames that have no account, kept by the same
 * rule as AdminUserRepository.claimLoginAttempt/lockIfExhausted keep an account's (docs/product.md §13.2).
 */
@Injectable()
export class UnknownLoginNameRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Counts a failed attempt of `username` up front and answers its number, or null while the name is locked or
   * already has `attempts` undecided or failed ones. One upsert: concurrent attempts on one name queue on its row
   * (or on the insert of its first) and at most the limit get through.
   */
  async claimLoginAttempt(username: string, rule: LockoutRule): Promise<number | null> {
    const [row] = await queryRows<{ failed_login_attempts: number }>(
      this.database.manager,
      `INSERT INTO unknown_login_names AS u (username, failed_login_attempts, locked_until, updated_at)
       VALUES ($1, 1, NULL, $4::timestamptz)
       ON CONFLICT (username) DO UPDATE SET
          failed_login_attempts = CASE
            WHEN u.failed_login_attempts >= $2 OR u.updated_at <= $4::timestamptz - make_interval(hours => $5) THEN 1
            ELSE u.failed_login_attempts + 1 END,
          locked_until = NULL,
          updated_at = $4
        WHERE (u.locked_until IS NULL OR u.locked_until <= $4)
          AND (u.failed_login_attempts < $2 OR u.locked_until <= $4::timestamptz
               OR u.updated_at <= $4::timestamptz - make_interval(mins => $3))
       RETURNING failed_login_attempts`,
      [username, rule.attempts, rule.minutes, rule.now, LOGIN_FAILURES_FORGOTTEN_HOURS],
    );
    return row ? row.failed_login_attempts : null;
  }

  /** Locks the name when its failed attempts reached the limit and it is not locked yet; answers the lock's end. */
  async lockIfExhausted(username: string, rule: LockoutRule): Promise<Date | null> {
    const [row] = await queryRows<{ locked_until: Date }>(
      this.database.manager,
      `UPDATE unknown_login_names SET locked_until = $4::timestamptz + make_interval(mins => $3)
        WHERE username = $1 AND failed_login_attempts >= $2 AND locked_until IS NULL
        RETURNING locked_until`,
      [username, rule.attempts, rule.minutes, rule.now],
    );
    return row?.locked_until ?? null;
  }

  /**
   * Retention: names without an attempt for `hours` (LOGIN_FAILURES_FORGOTTEN_HOURS: their count would start afresh,
   * and a lock lasts minutes) are the same as no row. One batch; answers how many went.
   */
  async deleteIdleFor(hours: number, limit: number): Promise<number> {
    const [{ n }] = await this.database.manager.query(
      `WITH d AS (
         DELETE FROM unknown_login_names WHERE username IN (
           SELECT username FROM unknown_login_names WHERE updated_at < now() - make_interval(hours => $1) LIMIT $2)
         RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [hours, limit],
    );
    return n;
  }
}
