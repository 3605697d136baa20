import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 29: staff accounts linked to a single sign-on identity (issuer + subject, unique), and integrations'
 * API tokens, stored as the SHA-256 of the token (the token itself is shown once and never kept).
 */
export class SsoAndApiTokens1763834000000 implements MigrationInterface {
  name = 'SsoAndApiTokens1763834000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_users ADD COLUMN oidc_issuer varchar(255), ADD COLUMN oidc_subject varchar(255)`);
    await q.query(
      `ALTER TABLE admin_users ADD CONSTRAINT uq_admin_users_oidc_identity UNIQUE (oidc_issuer, oidc_subject)`,
    );
    await q.query(`
      CREATE TABLE api_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(100) NOT NULL,
        token_hash varchar(64) NOT NULL,
        permissions text[] NOT NULL,
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz NOT NULL,
        last_used_at timestamptz,
        revoked_at timestamptz,
        CONSTRAINT uq_api_tokens_token_hash UNIQUE (token_hash),
        CONSTRAINT api_tokens_created_by_fkey FOREIGN KEY (created_by) REFERENCES admin_users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_api_tokens_created_at ON api_tokens (created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS api_tokens`);
    await q.query(`ALTER TABLE admin_users DROP CONSTRAINT IF EXISTS uq_admin_users_oidc_identity`);
    await q.query(`ALTER TABLE admin_users DROP COLUMN IF EXISTS oidc_issuer, DROP COLUMN IF EXISTS oidc_subject`);
  }
}
