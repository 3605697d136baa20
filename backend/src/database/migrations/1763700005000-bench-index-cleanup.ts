import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Index clean-up found by the benchmarks (docs/benchmarks.md):
 * - `idx_customers_name_trgm` (1763700000010) and `idx_customers_full_name_trgm` (1763700000410) are the
 *   same trigram index on `first_name || ' ' || last_name`; every redemption's customer upsert wrote both.
 * - `idx_voucher_codes_product_state (product_id, is_redeemed, created_at DESC)` is served by the partial
 *   indexes of 1763700000010 (`idx_voucher_codes_unredeemed_seq`, `idx_voucher_codes_redeemed`): per-product
 *   counts read those index-only. One index fewer for every uploaded code (about a tenth of an upload).
 */
export class BenchIndexCleanup1763700005000 implements MigrationInterface {
  name = 'BenchIndexCleanup1763700005000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_customers_name_trgm`);
    await q.query(`DROP INDEX IF EXISTS idx_voucher_codes_product_state`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_voucher_codes_product_state ON voucher_codes (product_id, is_redeemed, created_at DESC)`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_customers_name_trgm ON customers USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
    );
  }
}
