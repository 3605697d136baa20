import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A product's available codes are listed from `available_codes`, not from a partial index on the code's row (issue
 * 26; docs/architecture.md "A code's state"; docs/benchmarks.md "The code's update made heap-only"). With
 * idx_voucher_codes_redeemed gone (migration 1763844000000), idx_voucher_codes_unredeemed_seq was the last index that
 * reads the code's state: while it exists, the redemption's update of its code is never heap-only (HOT) and writes a
 * new entry into every index of `voucher_codes`. Now:
 * - `available_codes` (product, seq, code id): one row per available code, written by the statement that makes a
 *   code available (the upload) and deleted by each that ends it (the redemption, a void, a code's delete), in the
 *   same statement. Its primary key (product_id, seq) INCLUDE (voucher_code_id) is the Unredeemed tab's order and
 *   answers its page's ids from the index alone; no foreign key (its check would cost every uploaded code a lookup):
 *   the rows of a product deleted by hand (the application deletes none) list nothing, as its counter rows count
 *   nothing.
 * - `voucher_codes` keeps a tenth of each page free (fillfactor 90) for the redemption's new row version: a HOT update
 *   needs room on the row's own page. Pages written before this migration get it as they are pruned.
 */
export class AvailableCodesOffTheCodeRow1763845000000 implements MigrationInterface {
  name = 'AvailableCodesOffTheCodeRow1763845000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE available_codes (
         product_id uuid NOT NULL,
         seq bigint NOT NULL,
         voucher_code_id uuid NOT NULL,
         CONSTRAINT available_codes_pkey PRIMARY KEY (product_id, seq) INCLUDE (voucher_code_id)
       )`,
    );
    await q.query(
      `INSERT INTO available_codes (product_id, seq, voucher_code_id)
       SELECT product_id, seq, id FROM voucher_codes WHERE NOT is_redeemed AND voided_at IS NULL ORDER BY product_id, seq`,
    );
    await q.query(`DROP INDEX idx_voucher_codes_unredeemed_seq`);
    await q.query(`ALTER TABLE voucher_codes SET (fillfactor = 90)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE voucher_codes RESET (fillfactor)`);
    await q.query(
      `CREATE INDEX idx_voucher_codes_unredeemed_seq ON voucher_codes (product_id, seq DESC) WHERE NOT is_redeemed AND voided_at IS NULL`,
    );
    await q.query(`DROP TABLE available_codes`);
  }
}
