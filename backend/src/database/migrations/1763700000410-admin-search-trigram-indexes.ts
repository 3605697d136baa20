import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Substring search (`ILIKE '%term%'`) over voucher codes, customer names and e-mails in the admin
 * redemption list, and over licence keys, must stay fast at a million rows: trigram GIN indexes let
 * PostgreSQL answer it with bitmap index scans instead of reading whole tables.
 * pg_trgm is a trusted extension (PostgreSQL 13+), so the database owner may create it.
 */
export class AdminSearchTrigramIndexes1763700000410 implements MigrationInterface {
  name = 'AdminSearchTrigramIndexes1763700000410';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pg_trgm`);
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_voucher_codes_code_trgm ON voucher_codes USING gin (code gin_trgm_ops)`,
    );
    await q.query(`CREATE INDEX IF NOT EXISTS idx_customers_email_trgm ON customers USING gin (email gin_trgm_ops)`);
    // The list searches "first last" as one string, so "Ann Lee" finds Ann Lee.
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_customers_full_name_trgm ON customers USING gin ((first_name || ' ' || last_name) gin_trgm_ops)`,
    );
    await q.query(
      `CREATE INDEX IF NOT EXISTS idx_license_keys_key_trgm ON license_keys USING gin (license_key gin_trgm_ops)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_license_keys_key_trgm`);
    await q.query(`DROP INDEX IF EXISTS idx_customers_full_name_trgm`);
    await q.query(`DROP INDEX IF EXISTS idx_customers_email_trgm`);
    await q.query(`DROP INDEX IF EXISTS idx_voucher_codes_code_trgm`);
  }
}
