import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The licence-key list (docs/product.md §5.5 order: available, partially used, fully used, newest first within each)
 * sorted all keys by a computed usage rank on every page: ~270 ms at 500,000 keys (docs/benchmarks.md).
 * These indexes hold that order, for all products and per product; the expression is the list's
 * USAGE_RANK and the predicate its NOT_MANUAL filter (`license-key.service.ts`), word for word.
 */
const RANK = `(CASE WHEN current_activations = 0 THEN 0 WHEN current_activations < max_activations THEN 1 ELSE 2 END)`;
const NOT_MANUAL = `license_key NOT LIKE 'MANUAL_%'`;

export class LicenseKeyListIndex1763700005010 implements MigrationInterface {
  name = 'LicenseKeyListIndex1763700005010';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE INDEX idx_license_keys_list ON license_keys (${RANK}, created_at DESC, id DESC) WHERE ${NOT_MANUAL}`,
    );
    await q.query(
      `CREATE INDEX idx_license_keys_product_list ON license_keys (product_id, ${RANK}, created_at DESC, id DESC) WHERE ${NOT_MANUAL}`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_license_keys_product_list`);
    await q.query(`DROP INDEX IF EXISTS idx_license_keys_list`);
  }
}
