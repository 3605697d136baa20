import { MigrationInterface, QueryRunner } from 'typeorm';

const RANK = `(CASE WHEN current_activations = 0 THEN 0 WHEN current_activations < max_activations THEN 1 ELSE 2 END)`;

/**
 * Keys at rest (docs/product.md §18.1, docs/architecture.md "Keys at rest").
 *
 * license_keys: the columns of a sealed key (AES-256-GCM ciphertext, keyed hash, clear last 5 characters,
 * `is_manual`). A migration cannot seal (DATA_KEY is the application's): existing rows keep their clear key
 * here and the start-up step (`sealPlainLicenseKeys`, run under the migration lock right after the migrations)
 * seals them in batches and empties `license_key`. Uniqueness per product moves to (product_id, key_hash);
 * the list's indexes filter on `is_manual` instead of the key's prefix; the substring search index moves to
 * `key_last`.
 *
 * success_tokens: the token is replaced by its SHA-256 (PostgreSQL's own `sha256()`, so existing tokens keep
 * working); the token itself is no longer stored.
 */
export class KeysAtRest1763700007000 implements MigrationInterface {
  name = 'KeysAtRest1763700007000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE license_keys
      ALTER COLUMN license_key DROP NOT NULL,
      ADD COLUMN key_ciphertext bytea,
      ADD COLUMN key_hash bytea,
      ADD COLUMN key_last varchar(5),
      ADD COLUMN is_manual boolean NOT NULL DEFAULT false`);
    await q.query(`UPDATE license_keys SET is_manual = true WHERE license_key LIKE 'MANUAL\\_%'`);
    await q.query(`ALTER TABLE license_keys DROP CONSTRAINT uq_license_keys_product_key`);
    await q.query(`ALTER TABLE license_keys ADD CONSTRAINT uq_license_keys_product_hash UNIQUE (product_id, key_hash)`);
    await q.query(`ALTER TABLE license_keys ADD CONSTRAINT chk_license_keys_sealed CHECK (
      (license_key IS NULL AND key_ciphertext IS NOT NULL AND key_hash IS NOT NULL AND key_last IS NOT NULL)
      OR (license_key IS NOT NULL AND key_ciphertext IS NULL AND key_hash IS NULL))`);
    await q.query(`DROP INDEX IF EXISTS idx_license_keys_key_trgm`);
    await q.query(`CREATE INDEX idx_license_keys_key_trgm ON license_keys USING gin (key_last gin_trgm_ops)`);
    await q.query(`DROP INDEX idx_license_keys_list`);
    await q.query(`DROP INDEX idx_license_keys_product_list`);
    await q.query(
      `CREATE INDEX idx_license_keys_list ON license_keys (${RANK}, created_at DESC, id DESC) WHERE NOT is_manual`,
    );
    await q.query(
      `CREATE INDEX idx_license_keys_product_list ON license_keys (product_id, ${RANK}, created_at DESC, id DESC) WHERE NOT is_manual`,
    );

    await q.query(`ALTER TABLE success_tokens ADD COLUMN token_hash bytea`);
    await q.query(`UPDATE success_tokens SET token_hash = sha256(convert_to(token, 'UTF8'))`);
    await q.query(`ALTER TABLE success_tokens ALTER COLUMN token_hash SET NOT NULL`);
    await q.query(`ALTER TABLE success_tokens DROP CONSTRAINT uq_success_tokens_token, DROP COLUMN token`);
    await q.query(`ALTER TABLE success_tokens ADD CONSTRAINT uq_success_tokens_token_hash UNIQUE (token_hash)`);
  }

  /** Only before any key was sealed (a sealed key cannot be put back without DATA_KEY); success tokens are lost. */
  public async down(q: QueryRunner): Promise<void> {
    const [{ sealed }] = await q.query(
      `SELECT count(*)::int AS sealed FROM license_keys WHERE key_ciphertext IS NOT NULL`,
    );
    if (sealed > 0) {
      throw new Error(`${sealed} licence keys are sealed under DATA_KEY; this migration cannot be undone`);
    }
    await q.query(`DELETE FROM success_tokens`);
    await q.query(`ALTER TABLE success_tokens DROP CONSTRAINT uq_success_tokens_token_hash, DROP COLUMN token_hash`);
    await q.query(`ALTER TABLE success_tokens ADD COLUMN token varchar(64) NOT NULL`);
    await q.query(`ALTER TABLE success_tokens ADD CONSTRAINT uq_success_tokens_token UNIQUE (token)`);
    await q.query(`DROP INDEX idx_license_keys_list`);
    await q.query(`DROP INDEX idx_license_keys_product_list`);
    await q.query(`DROP INDEX idx_license_keys_key_trgm`);
    await q.query(
      `ALTER TABLE license_keys DROP CONSTRAINT chk_license_keys_sealed, DROP CONSTRAINT uq_license_keys_product_hash`,
    );
    await q.query(`ALTER TABLE license_keys DROP COLUMN key_ciphertext, DROP COLUMN key_hash, DROP COLUMN key_last, DROP COLUMN is_manual,
      ALTER COLUMN license_key SET NOT NULL`);
    await q.query(
      `ALTER TABLE license_keys ADD CONSTRAINT uq_license_keys_product_key UNIQUE (product_id, license_key)`,
    );
    await q.query(`CREATE INDEX idx_license_keys_key_trgm ON license_keys USING gin (license_key gin_trgm_ops)`);
    const notManual = `license_key NOT LIKE 'MANUAL_%'`;
    await q.query(
      `CREATE INDEX idx_license_keys_list ON license_keys (${RANK}, created_at DESC, id DESC) WHERE ${notManual}`,
    );
    await q.query(
      `CREATE INDEX idx_license_keys_product_list ON license_keys (product_id, ${RANK}, created_at DESC, id DESC) WHERE ${notManual}`,
    );
  }
}
