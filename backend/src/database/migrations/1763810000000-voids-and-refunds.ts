import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Refunds (docs/product.md §19.3, issue 10).
 * - `voucher_codes.voided_at`: a code refunded before it was redeemed is void (never redeemable, 410). A real
 *   column value, so counters and batch reconciliations count void codes with `voided_at IS NOT NULL`; a code is
 *   `available` (neither), `redeemed` (`is_redeemed`) or `void` (`voided_at`), never both (the check).
 * - `idx_voucher_codes_unredeemed_seq` now holds the available codes only (`AND voided_at IS NULL`): the
 *   Unredeemed tab, the unredeemed export and "active vouchers" read it and must not see void codes.
 * - `idx_voucher_codes_void_seq`: the Void tab, newest first; small (refunds are rare).
 * - `redemptions.refunded_at`: a code refunded after it was redeemed keeps its redemption (and key) and is marked.
 * Adding nullable columns without a default rewrites nothing; the check and the two partial indexes read the
 * table once.
 */
export class VoidsAndRefunds1763810000000 implements MigrationInterface {
  name = 'VoidsAndRefunds1763810000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE voucher_codes ADD COLUMN voided_at timestamptz`);
    await q.query(
      `ALTER TABLE voucher_codes ADD CONSTRAINT chk_voucher_codes_void_unredeemed CHECK (voided_at IS NULL OR NOT is_redeemed)`,
    );
    await q.query(`DROP INDEX idx_voucher_codes_unredeemed_seq`);
    await q.query(
      `CREATE INDEX idx_voucher_codes_unredeemed_seq ON voucher_codes (product_id, seq DESC) WHERE NOT is_redeemed AND voided_at IS NULL`,
    );
    await q.query(
      `CREATE INDEX idx_voucher_codes_void_seq ON voucher_codes (product_id, seq DESC) WHERE voided_at IS NOT NULL`,
    );
    await q.query(`ALTER TABLE redemptions ADD COLUMN refunded_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions DROP COLUMN refunded_at`);
    await q.query(`DROP INDEX idx_voucher_codes_void_seq`);
    await q.query(`DROP INDEX idx_voucher_codes_unredeemed_seq`);
    await q.query(
      `CREATE INDEX idx_voucher_codes_unredeemed_seq ON voucher_codes (product_id, seq DESC) WHERE NOT is_redeemed`,
    );
    await q.query(`ALTER TABLE voucher_codes DROP CONSTRAINT chk_voucher_codes_void_unredeemed`);
    await q.query(`ALTER TABLE voucher_codes DROP COLUMN voided_at`);
  }
}
