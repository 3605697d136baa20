import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Backorders: the redemptions waiting for a licence key, by product, oldest first (a product's count of waiting
 * customers in the pool forecast, and the redemptions its added keys go to, read only these rows); a low-pool alert
 * keeps the count it was written with.
 */
export class Backorders1796192804930 implements MigrationInterface {
  name = 'Backorders1796192804930';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_redemptions_awaiting_product
         ON redemptions (product_id, redeemed_at, id) WHERE awaiting_license`,
    );
    await q.query(`ALTER TABLE pool_alerts ADD COLUMN IF NOT EXISTS waiting_customers int NOT NULL DEFAULT 0`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE pool_alerts DROP COLUMN IF EXISTS waiting_customers`);
    await q.query(`DROP INDEX IF EXISTS idx_redemptions_awaiting_product`);
  }
}
