import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Two-factor recovery codes (issue 16): ten per user, each a SHA-256 of the code, spent once (`used_at`).
 * The unique (admin_user_id, code_hash) index serves the single-use claim at sign-in and the per-user delete.
 */
export class AdminRecoveryCodes1763816000000 implements MigrationInterface {
  name = 'AdminRecoveryCodes1763816000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE admin_recovery_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        admin_user_id uuid NOT NULL,
        code_hash varchar(64) NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_admin_recovery_codes_user_hash UNIQUE (admin_user_id, code_hash),
        CONSTRAINT admin_recovery_codes_admin_user_id_fkey FOREIGN KEY (admin_user_id) REFERENCES admin_users(id) ON DELETE CASCADE
      )`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS admin_recovery_codes`);
  }
}
