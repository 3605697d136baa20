import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * TOTP secrets are sealed under DATA_KEY like licence keys (docs/security.md "TOTP secrets at rest"). The start-up
 * step seals the clear values left by earlier versions and empties `two_factor_secret` (a migration does not know
 * DATA_KEY); the check keeps a row from holding both.
 */
export class TotpSecretSealed1763832000000 implements MigrationInterface {
  name = 'TotpSecretSealed1763832000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE admin_users ADD COLUMN two_factor_secret_ciphertext bytea,
      ADD CONSTRAINT chk_admin_users_totp_sealed CHECK (two_factor_secret IS NULL OR two_factor_secret_ciphertext IS NULL)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    // Sealed secrets cannot be opened here (no DATA_KEY): going back would switch two-factor off, so refuse while any exist.
    const [{ n }] = await q.query(
      `SELECT count(*)::int AS n FROM admin_users WHERE two_factor_secret_ciphertext IS NOT NULL`,
    );
    if (n > 0) {
      throw new Error(
        `${n} admin users hold a sealed TOTP secret: disable their two-factor before reverting this migration`,
      );
    }
    await q.query(
      `ALTER TABLE admin_users DROP CONSTRAINT chk_admin_users_totp_sealed, DROP COLUMN two_factor_secret_ciphertext`,
    );
  }
}
