import { Injectable } from '@nestjs/common';
import { redemptionCountsCtes } from '../../common/utils/counters-sql';
import { DatabaseService } from '../../database/database.service';
import { releasedCodesCte } from '../voucher/code-status.sql';

/*
 * docs/product.md §1.5 retention of the redemption module's tables (redemptions after 7 years, then their customers).
 * Each call deletes one batch and answers how many rows went, so no statement holds locks for long.
 */
@Injectable()
export class RedemptionRetentionRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * One batch of redemptions older than `days` (found through idx_redemptions_list (exported, redeemed_at DESC, id),
   * one range per `exported` value), taken off their counters in the same statement (`redemptionCountsCtes`). A
   * deleted redemption keeps its code redeemed (no cascade to it; listed from `released_codes`, `releasedCodesCte`)
   * and its key assignment (set to null).
   */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    const [{ n }] = await this.database.manager.query(
      `WITH d AS (DELETE FROM redemptions WHERE id IN (
          SELECT id FROM redemptions
           WHERE exported IN (false, true) AND redeemed_at < now() - make_interval(days => $1) LIMIT $2)
          RETURNING product_id, voucher_code_id, redeemed_at, exported)
       ${redemptionCountsCtes('d', -1)} ${releasedCodesCte('d')}
       SELECT count(*)::int AS n FROM d`,
      [days, batch],
    );
    return n;
  }

  /**
   * One batch of customers older than `days` left without any redemption (a deleted redemption's customer
   * goes once it is old enough). Safe against a redemption by that customer at the same moment:
   * 1. lock the candidates `FOR UPDATE SKIP LOCKED`: a customer row a redemption is upserting right now
   *    is skipped, and from here on a redemption for a locked customer waits (its upsert, and the foreign
   *    key check of its INSERT, need the row);
   * 2. delete them in a second statement, whose fresh snapshot sees every redemption committed before
   *    the locks were taken, re-checking "no redemption" there.
   * A redemption that waited finds its customer gone and creates it anew. The foreign key is ON DELETE
   * RESTRICT besides, so no purge can ever take a redemption with it.
   */
  deleteUnusedCustomers(days: number, batch: number): Promise<number> {
    return this.database.transaction(async (db) => {
      const candidates: Array<{ id: string }> = await db.query(
        `SELECT c.id FROM customers c WHERE c.created_at < now() - make_interval(days => $1)
            AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.customer_id = c.id)
          LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [days, batch],
      );
      if (!candidates.length) return 0;
      const [{ n }] = await db.query(
        `WITH d AS (DELETE FROM customers c WHERE c.id = ANY($1::uuid[])
            AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.customer_id = c.id) RETURNING 1)
         SELECT count(*)::int AS n FROM d`,
        [candidates.map((c) => c.id)],
      );
      // Fewer than `batch` (some were skipped or kept) ends this run; the next run takes the rest.
      return n;
    });
  }
}
