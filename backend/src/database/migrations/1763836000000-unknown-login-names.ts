import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Sign-in lockout for usernames that have no account (docs/product.md §13.2): their failed attempts are
 * counted per name, as `admin_users` counts an account's, so an unknown name answers 423 after 5 failures too.
 */
export class UnknownLoginNames1763836000000 implements MigrationInterface {
  name = 'UnknownLoginNames1763836000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE unknown_login_names (
        username varchar(50) PRIMARY KEY,
        failed_login_attempts integer NOT NULL DEFAULT 0,
        locked_until timestamptz,
        updated_at timestamptz NOT NULL
      )`);
    await q.query(`CREATE INDEX idx_unknown_login_names_updated ON unknown_login_names (updated_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS unknown_login_names`);
  }
}
