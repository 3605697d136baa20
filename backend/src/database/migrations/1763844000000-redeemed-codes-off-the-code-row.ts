import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A product's redeemed codes are listed from the redemptions, not from an index on the code's row (issue 26, "each
 * index pays its way on the write path"; docs/benchmarks.md "The code's update made heap-only"):
 * - idx_voucher_codes_redeemed (product_id, redeemed_at DESC, seq DESC) WHERE is_redeemed goes: a redemption no longer
 *   inserts into it, and it is one of the two indexes on the code's state that keep the redemption's update of the
 *   code from being a heap-only (HOT) update, which inserts into none of the code's indexes.
 * - The Redeemed tab reads idx_redemptions_product_redeemed, now (product_id, redeemed_at, voucher_code_id): its page
 *   of code ids comes from the index alone, newest first.
 * - A redemption that is deleted (by an admin, or by retention) leaves its code redeemed: the code goes into
 *   `released_codes` with its redemption's time in the same statement, read beside the redemptions (one Merge Append).
 *   Codes redeemed without a redemption before this migration are carried over.
 */
export class RedeemedCodesOffTheCodeRow1763844000000 implements MigrationInterface {
  name = 'RedeemedCodesOffTheCodeRow1763844000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE released_codes (
         voucher_code_id uuid NOT NULL,
         product_id uuid NOT NULL,
         redeemed_at timestamptz NOT NULL,
         CONSTRAINT released_codes_pkey PRIMARY KEY (voucher_code_id),
         CONSTRAINT released_codes_voucher_code_id_fkey FOREIGN KEY (voucher_code_id) REFERENCES voucher_codes (id) ON DELETE CASCADE
       )`,
    );
    await q.query(
      `INSERT INTO released_codes (voucher_code_id, product_id, redeemed_at)
       SELECT v.id, v.product_id, coalesce(v.redeemed_at, v.created_at) FROM voucher_codes v
        WHERE v.is_redeemed AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.voucher_code_id = v.id)`,
    );
    await q.query(
      `CREATE INDEX idx_released_codes_product ON released_codes (product_id, redeemed_at, voucher_code_id)`,
    );
    await q.query(`DROP INDEX idx_redemptions_product_redeemed`);
    await q.query(
      `CREATE INDEX idx_redemptions_product_redeemed ON redemptions (product_id, redeemed_at, voucher_code_id)`,
    );
    await q.query(`DROP INDEX idx_voucher_codes_redeemed`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX idx_voucher_codes_redeemed ON voucher_codes (product_id, redeemed_at DESC, seq DESC) WHERE is_redeemed`,
    );
    await q.query(`DROP INDEX idx_redemptions_product_redeemed`);
    await q.query(`CREATE INDEX idx_redemptions_product_redeemed ON redemptions (product_id, redeemed_at)`);
    await q.query(`DROP TABLE released_codes`);
  }
}
