import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Admin auth: the hash of the refresh token spent by the last rotation (so its reuse can revoke the
 * session), and the index the per-IP failed-login count reads.
 */
export class AuthRefreshRotation1763700003000 implements MigrationInterface {
  name = 'AuthRefreshRotation1763700003000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_sessions ADD COLUMN previous_refresh_token varchar(128)`);
    await q.query(`CREATE INDEX idx_admin_sessions_previous_refresh ON admin_sessions (previous_refresh_token)`);
    await q.query(`CREATE INDEX idx_security_audit_log_ip ON security_audit_log (ip_address, created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_security_audit_log_ip`);
    await q.query(`DROP INDEX IF EXISTS idx_admin_sessions_previous_refresh`);
    await q.query(`ALTER TABLE admin_sessions DROP COLUMN IF EXISTS previous_refresh_token`);
  }
}
