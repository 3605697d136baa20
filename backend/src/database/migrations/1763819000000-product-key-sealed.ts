import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The shared product key of a Mac product (docs/product.md §4.1 `productKey`) is sold like a licence key: sealed under
 * DATA_KEY too (docs/product.md §18.1). The start-up step seals existing clear values and empties `product_key`
 * (DATA_KEY is not known to a migration); the check keeps a row from holding both.
 */
export class ProductKeySealed1763819000000 implements MigrationInterface {
  name = 'ProductKeySealed1763819000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE products ADD COLUMN product_key_ciphertext bytea,
      ADD CONSTRAINT chk_products_key_sealed CHECK (product_key IS NULL OR product_key_ciphertext IS NULL)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    // Sealed values cannot be opened here (no DATA_KEY): going back loses them, so refuse while any exist.
    const [{ n }] = await q.query(`SELECT count(*)::int AS n FROM products WHERE product_key_ciphertext IS NOT NULL`);
    if (n > 0) throw new Error(`${n} products hold a sealed product key: clear them before reverting this migration`);
    await q.query(`ALTER TABLE products DROP CONSTRAINT chk_products_key_sealed, DROP COLUMN product_key_ciphertext`);
  }
}
