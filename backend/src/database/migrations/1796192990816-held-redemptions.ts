import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Held redemptions (docs/product.md §25.2): a redemption a risk rule flagged for review keeps `held_at` and the rules
 * it matched (`held_rules`) until staff approve or refuse it. Both columns are nullable without a default (no rewrite
 * of the table); the review queue reads the held ones through a partial index that holds only them.
 */
export class HeldRedemptions1796192990816 implements MigrationInterface {
  name = 'HeldRedemptions1796192990816';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions ADD COLUMN held_at timestamptz, ADD COLUMN held_rules jsonb`);
    await q.query(`CREATE INDEX idx_redemptions_held ON redemptions (held_at, id) WHERE held_at IS NOT NULL`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX idx_redemptions_held`);
    await q.query(`ALTER TABLE redemptions DROP COLUMN held_rules, DROP COLUMN held_at`);
  }
}
