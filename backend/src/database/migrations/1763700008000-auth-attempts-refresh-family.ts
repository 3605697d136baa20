import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * docs/product.md §18.5 "Stolen-token limits" and §18.6 "Test e-mails":
 * - `admin_attempts`: per-user attempts of the account calls that check a secret (change-password, 2FA
 *   setup/enable/disable) and test e-mails sent, counted in PostgreSQL so every instance sees them;
 * - `admin_session_spent_tokens`: every refresh token a session has spent (SHA-256), so reusing ANY earlier
 *   token of the family revokes the session; it replaces `admin_sessions.previous_refresh_token`.
 */
export class AuthAttemptsRefreshFamily1763700008000 implements MigrationInterface {
  name = 'AuthAttemptsRefreshFamily1763700008000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE admin_attempts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        admin_user_id uuid NOT NULL,
        kind varchar(30) NOT NULL,
        outcome varchar(10) NOT NULL DEFAULT 'pending',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT admin_attempts_admin_user_id_fkey FOREIGN KEY (admin_user_id) REFERENCES admin_users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_admin_attempts_user_kind ON admin_attempts (admin_user_id, kind, created_at)`);
    await q.query(`
      CREATE TABLE admin_session_spent_tokens (
        token_hash varchar(128) PRIMARY KEY,
        session_id uuid NOT NULL,
        spent_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT admin_session_spent_tokens_session_id_fkey FOREIGN KEY (session_id) REFERENCES admin_sessions(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_admin_session_spent_tokens_session ON admin_session_spent_tokens (session_id)`);
    await q.query(`
      INSERT INTO admin_session_spent_tokens (token_hash, session_id)
      SELECT previous_refresh_token, id FROM admin_sessions WHERE previous_refresh_token IS NOT NULL
      ON CONFLICT DO NOTHING`);
    await q.query(`DROP INDEX IF EXISTS idx_admin_sessions_previous_refresh`);
    await q.query(`ALTER TABLE admin_sessions DROP COLUMN IF EXISTS previous_refresh_token`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_sessions ADD COLUMN previous_refresh_token varchar(128)`);
    await q.query(`CREATE INDEX idx_admin_sessions_previous_refresh ON admin_sessions (previous_refresh_token)`);
    await q.query(`DROP TABLE IF EXISTS admin_session_spent_tokens`);
    await q.query(`DROP TABLE IF EXISTS admin_attempts`);
  }
}
