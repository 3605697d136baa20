import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Three indexes fewer for every redemption to write (issue 26, "each index pays its way on the write path";
 * docs/benchmarks.md "Three indexes fewer"), each a duplicate of what another index already answers:
 * - The customers' unique e-mail index becomes a `text_pattern_ops` b-tree, which answers equality (the redemption's
 *   upsert, a customer's lookup) and the start of an e-mail (`LIKE 'ann%'`, the list's word search) alike, so
 *   idx_customers_email_prefix, the same column with the same operator class, goes. A unique constraint cannot name
 *   an operator class: it is a unique index now, which `ON CONFLICT (email)` infers as before.
 * - idx_redemptions_pending_mail (redeemed_at) WHERE pending: the e-mail sweeps read pending rows from
 *   idx_redemptions_status_list (exported, email_status, redeemed_at DESC, id), one range per `exported` value.
 * - idx_redemptions_redeemed_at (redeemed_at): retention and the pool forecast read idx_redemptions_list (exported,
 *   redeemed_at DESC, id) the same way (`exported IN (false, true)`).
 */
export class FewerWritePathIndexes1763843000000 implements MigrationInterface {
  name = 'FewerWritePathIndexes1763843000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX uq_customers_email_pattern ON customers (email text_pattern_ops)`);
    await q.query(`ALTER TABLE customers DROP CONSTRAINT uq_customers_email`);
    await q.query(`ALTER INDEX uq_customers_email_pattern RENAME TO uq_customers_email`);
    await q.query(`DROP INDEX idx_customers_email_prefix`);
    await q.query(`DROP INDEX idx_redemptions_pending_mail`);
    await q.query(`DROP INDEX idx_redemptions_redeemed_at`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`CREATE INDEX idx_redemptions_redeemed_at ON redemptions (redeemed_at)`);
    await q.query(
      `CREATE INDEX idx_redemptions_pending_mail ON redemptions (redeemed_at) WHERE email_status = 'pending'`,
    );
    await q.query(`CREATE INDEX idx_customers_email_prefix ON customers (email text_pattern_ops)`);
    await q.query(`DROP INDEX uq_customers_email`);
    await q.query(`ALTER TABLE customers ADD CONSTRAINT uq_customers_email UNIQUE (email)`);
  }
}
