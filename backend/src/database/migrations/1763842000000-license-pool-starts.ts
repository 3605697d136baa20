import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Where each product's pool scan starts (issue 26; docs/architecture.md "The pool's start"): the redemption's "oldest
 * free key" walked idx_license_keys_pool from the product's first entry, past the entry of every key taken since
 * the last VACUUM (a key taken leaves the partial index as a dead entry): about 370 of the ~535 pages a redemption
 * touched. `license_pool_starts` holds, per product, the (created_at, id) before which no key has room; the
 * redemption starts its index scan there. A job moves it to the first key with room every POOL_START_INTERVAL_MS;
 * every writer that gives a key room (a key added, a key switched on) lowers it in its own statement. No row: the
 * scan starts at the beginning, as before. One row per product; an update changes no indexed column, so it stays on
 * its page (a HOT update) and the table stays a few pages.
 */
export class LicensePoolStarts1763842000000 implements MigrationInterface {
  name = 'LicensePoolStarts1763842000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE license_pool_starts (
        product_id uuid NOT NULL,
        key_created_at timestamptz NOT NULL,
        key_id uuid NOT NULL,
        CONSTRAINT pk_license_pool_starts PRIMARY KEY (product_id),
        CONSTRAINT fk_license_pool_starts_product FOREIGN KEY (product_id) REFERENCES products (id) ON DELETE CASCADE
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE license_pool_starts`);
  }
}
