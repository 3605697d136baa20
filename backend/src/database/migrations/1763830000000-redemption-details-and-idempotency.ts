import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 24 (security round two), docs/product.md §11.6:
 * - Each redemption keeps the details given with it: name, phone, address (zip code), IP and country are columns of
 *   `redemptions`, written by the redemption statement. A later redemption with the same e-mail no longer rewrites
 *   what an earlier one shows; `customers` stays one row per lower-cased e-mail. Existing rows are filled from their
 *   customer (the best that is known of them).
 * - The admin list's name search moves with the names: a trigram index on the redemption's full name replaces the
 *   customers' (which nothing searches any more); the e-mail search keeps idx_customers_email_trgm.
 * - `idempotency_key_hash`: SHA-256 of the redeem page's `Idempotency-Key`; only a repeat carrying it gets a new
 *   success token for the redemption. No index: it is compared on the one row the code already found.
 */
export class RedemptionDetailsAndIdempotency1763830000000 implements MigrationInterface {
  name = 'RedemptionDetailsAndIdempotency1763830000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions
      ADD COLUMN first_name varchar(50),
      ADD COLUMN last_name varchar(50),
      ADD COLUMN phone varchar(20),
      ADD COLUMN zip_code varchar(20),
      ADD COLUMN ip_address varchar(45),
      ADD COLUMN country varchar(2),
      ADD COLUMN idempotency_key_hash bytea`);
    // Only the new columns change: the counter triggers (INSERT, DELETE, UPDATE OF redeemed_at, product_id) stay idle.
    await q.query(`UPDATE redemptions r
        SET first_name = c.first_name, last_name = c.last_name, phone = c.phone, zip_code = c.zip_code,
            ip_address = c.ip_address, country = c.country
       FROM customers c WHERE c.id = r.customer_id`);
    await q.query(`ALTER TABLE redemptions ALTER COLUMN first_name SET NOT NULL, ALTER COLUMN last_name SET NOT NULL`);
    await q.query(
      `CREATE INDEX idx_redemptions_full_name_trgm ON redemptions USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
    );
    await q.query(`DROP INDEX IF EXISTS idx_customers_full_name_trgm`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_customers_full_name_trgm ON customers USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
    );
    await q.query(`DROP INDEX IF EXISTS idx_redemptions_full_name_trgm`);
    await q.query(`ALTER TABLE redemptions
      DROP COLUMN idempotency_key_hash, DROP COLUMN country, DROP COLUMN ip_address, DROP COLUMN zip_code,
      DROP COLUMN phone, DROP COLUMN last_name, DROP COLUMN first_name`);
  }
}
