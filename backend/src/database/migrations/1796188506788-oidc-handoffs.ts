import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Single sign-on hands the console a one-time code bound to the browser by a cookie, instead of a refresh token in
 * the redirect (docs/auth.md "Hand-over to the console"): both stored as SHA-256, spent once, 60 s at most.
 */
export class OidcHandoffs1796188506788 implements MigrationInterface {
  name = 'OidcHandoffs1796188506788';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE oidc_handoffs (
        code_hash varchar(64) PRIMARY KEY,
        browser_hash varchar(64) NOT NULL,
        admin_user_id uuid NOT NULL,
        details jsonb NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT oidc_handoffs_admin_user_id_fkey
          FOREIGN KEY (admin_user_id) REFERENCES admin_users (id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_oidc_handoffs_expires ON oidc_handoffs (expires_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS oidc_handoffs`);
  }
}
