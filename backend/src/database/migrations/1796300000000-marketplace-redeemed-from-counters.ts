import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A connection's `redeemed` is counted from its products' redemption counters (`product_counts.redemptions`) since it
 * began serving each, not by one row every redemption updated: that row's lock queued the connected product's
 * redemptions behind each other's commits (4–12 ms at the median at 200 redemptions/s, docs/benchmarks.md). Each
 * product served starts from its count now; what the connections counted so far stays in `redeemed`.
 */
export class MarketplaceRedeemedFromCounters1796300000000 implements MigrationInterface {
  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE marketplace_products ADD COLUMN redemptions_before bigint NOT NULL DEFAULT 0`);
    await q.query(`
      UPDATE marketplace_products p
         SET redemptions_before = coalesce((SELECT sum(c.redemptions) FROM product_counts c
                                             WHERE c.product_id = p.product_id), 0)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    // What the products counted since goes back into the connection's own counter.
    await q.query(`
      UPDATE marketplace_connections m
         SET redeemed = m.redeemed + coalesce((
               SELECT sum(greatest(0, coalesce((SELECT sum(c.redemptions) FROM product_counts c
                                                 WHERE c.product_id = p.product_id), 0) - p.redemptions_before))
                 FROM marketplace_products p WHERE p.connection_id = m.id), 0)`);
    await q.query(`ALTER TABLE marketplace_products DROP COLUMN redemptions_before`);
  }
}
