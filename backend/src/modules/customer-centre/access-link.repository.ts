import { Injectable } from '@nestjs/common';
import { createHash } from 'crypto';
import { returnedRows } from '../../common/utils/sql';
import { DatabaseService } from '../../database/database.service';
import { deleteBatch } from '../../database/query-rows';
import { AccessLinkStatus } from './entities/customer-access-link.entity';

/** Sign-in links are stored as the SHA-256 of their token only. */
export function accessTokenHash(token: string): Buffer {
  return createHash('sha256').update(token).digest();
}

/** The one owner of `customer_access_links`, the sign-in links and their e-mail outbox. */
@Injectable()
export class AccessLinkRepository {
  constructor(private readonly database: DatabaseService) {}

  /** A pending link for the address: the outbox row every request writes, known address or not (one statement). */
  async insertPending(email: string): Promise<string> {
    const [row] = await this.database.manager.query(
      `INSERT INTO customer_access_links (email) VALUES ($1) RETURNING id`,
      [email],
    );
    return row.id as string;
  }

  /** The address of a pending link never claimed: its first send is still to be decided. */
  async undecided(id: string): Promise<{ email: string } | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT email FROM customer_access_links WHERE id = $1 AND status = 'pending' AND attempts = 0`,
      [id],
    );
    return row;
  }

  /** Deletes a link whose e-mail does not go out (never claimed); false when it was claimed or gone meanwhile. */
  async discard(id: string): Promise<boolean> {
    const db = this.database.current;
    const deleted = await db.query(
      `DELETE FROM customer_access_links WHERE id = $1 AND status = 'pending' AND attempts = 0 RETURNING 1`,
      [id],
    );
    return returnedRows(deleted).length > 0;
  }

  /**
   * The first claim of a link (see claim), unless `perHour` links of the address were already decided to go out
   * within the hour: then the row goes ('limit'). Run in the caller's transaction, holding a lock on the address
   * (pg_advisory_xact_lock over its hash), so concurrent first sends count each other. 'gone': claimed or deleted
   * meanwhile.
   */
  async claimFirstWithinLimit(
    id: string,
    email: string,
    perHour: number,
    claim: { claimSeconds: number; token: string; validMinutes: number },
  ): Promise<{ email: string } | 'limit' | 'gone'> {
    const db = this.database.current;
    await db.query(`SELECT pg_advisory_xact_lock(hashtextextended('customer-access:' || $1, 0))`, [email]);
    const [{ n }] = await db.query(
      `SELECT count(*)::int AS n FROM customer_access_links
        WHERE email = $1 AND created_at > now() - interval '1 hour' AND id <> $2
          AND (attempts > 0 OR status <> 'pending')`,
      [email, id],
    );
    if (n >= perHour) return (await this.discard(id)) ? 'limit' : 'gone';
    const [row] = returnedRows<{ email: string }>(
      await db.query(
        `UPDATE customer_access_links
            SET claimed_until = now() + make_interval(secs => $2), attempts = 1, token_hash = $3,
                expires_at = now() + make_interval(mins => $4)
          WHERE id = $1 AND status = 'pending' AND attempts = 0
          RETURNING email`,
        [id, claim.claimSeconds, accessTokenHash(claim.token), claim.validMinutes],
      ),
    );
    return row ?? 'gone';
  }

  /**
   * Claims a pending link for one send and gives it the token made for this send (its hash) and its validity: a
   * retried send replaces the token of a failed one. Undefined: nothing to send (sent, failed, claimed, erased).
   */
  async claim(
    id: string,
    claimSeconds: number,
    token: string,
    validMinutes: number,
  ): Promise<{ email: string } | undefined> {
    const [row] = returnedRows<{ email: string }>(
      await this.database.manager.query(
        `UPDATE customer_access_links
            SET claimed_until = now() + make_interval(secs => $2), attempts = attempts + 1, token_hash = $3,
                expires_at = now() + make_interval(mins => $4)
          WHERE id = $1 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
          RETURNING email`,
        [id, claimSeconds, accessTokenHash(token), validMinutes],
      ),
    );
    return row;
  }

  /** Settles a send: sent or failed for good, or pending again with the claim ended now (the sweep's clock). */
  async finish(id: string, status: AccessLinkStatus): Promise<void> {
    await this.database.manager.query(
      `UPDATE customer_access_links SET status = $2::text, claimed_until = CASE WHEN $2::text = 'pending' THEN now() END,
              sent_at = CASE WHEN $2::text = 'sent' THEN now() END,
              token_hash = CASE WHEN $2::text = 'sent' THEN token_hash END
        WHERE id = $1`,
      [id, status],
    );
  }

  /**
   * Spends a link: the address it was sent to, unused and unexpired (once only, whoever races). Not waiting for the
   * row to say `sent`: the customer may click before the job has settled it; a failed send's token is cleared.
   */
  async spend(token: string): Promise<string | undefined> {
    const [row] = returnedRows<{ email: string }>(
      await this.database.manager.query(
        `UPDATE customer_access_links SET used_at = now()
          WHERE token_hash = $1 AND used_at IS NULL AND expires_at > now()
          RETURNING email`,
        [accessTokenHash(token)],
      ),
    );
    return row?.email;
  }

  /** Pending links with no live claim whose last attempt (or creation) is older than `olderThanMs`: lost jobs. */
  async findStalePending(olderThanMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT id FROM customer_access_links
        WHERE status = 'pending' AND coalesce(claimed_until, created_at) < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT $2`,
      [olderThanMs / 1000, limit],
    );
    return rows.map((r) => r.id);
  }

  /** Retention: one batch of links older than `hours` (used, expired, past the hourly limit's window). */
  async deleteOlderThan(hours: number, batch: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'customer_access_links',
      'created_at < now() - make_interval(hours => $1)',
      [hours],
      batch,
    );
  }

  /** An erasure, on its transaction: the address's links go (idx_customer_access_links_email). */
  async deleteFor(email: string): Promise<number> {
    const db = this.database.current;
    return returnedRows(await db.query(`DELETE FROM customer_access_links WHERE email = $1 RETURNING 1`, [email]))
      .length;
  }
}
