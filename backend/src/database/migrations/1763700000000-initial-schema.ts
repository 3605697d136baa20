import { MigrationInterface, QueryRunner } from 'typeorm';

export class InitialSchema1763700000000 implements MigrationInterface {
  name = 'InitialSchema1763700000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS pgcrypto`);
    await q.query(`
      CREATE TABLE products (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        name varchar(200) NOT NULL,
        download_link varchar(2048) NOT NULL DEFAULT '',
        product_key varchar(100),
        email_template text NOT NULL DEFAULT '',
        email_subject varchar(500) NOT NULL DEFAULT '',
        status varchar(20) NOT NULL DEFAULT 'active',
        is_license_managed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_products_name UNIQUE (name)
      )`);
    await q.query(`
      CREATE TABLE voucher_codes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        code varchar(100) NOT NULL,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        is_redeemed boolean NOT NULL DEFAULT false,
        created_at timestamptz NOT NULL DEFAULT now(),
        redeemed_at timestamptz,
        CONSTRAINT uq_voucher_codes_code UNIQUE (code)
      )`);
    await q.query(
      `CREATE INDEX idx_voucher_codes_product_state ON voucher_codes (product_id, is_redeemed, created_at DESC)`,
    );

    await q.query(`
      CREATE TABLE customers (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        first_name varchar(50) NOT NULL,
        last_name varchar(50) NOT NULL,
        email varchar(254) NOT NULL,
        phone varchar(20),
        country varchar(2),
        zip_code varchar(20),
        ip_address varchar(45),
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_customers_email UNIQUE (email)
      )`);

    await q.query(`
      CREATE TABLE redemptions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        voucher_code_id uuid NOT NULL REFERENCES voucher_codes(id) ON DELETE RESTRICT,
        customer_id uuid NOT NULL REFERENCES customers(id) ON DELETE CASCADE,
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        email_status varchar(20) NOT NULL DEFAULT 'pending',
        awaiting_license boolean NOT NULL DEFAULT false,
        email_locked_until timestamptz,
        email_attempts int NOT NULL DEFAULT 0,
        email_last_attempt_at timestamptz,
        redeemed_at timestamptz NOT NULL DEFAULT now(),
        exported boolean NOT NULL DEFAULT false,
        exported_at timestamptz,
        CONSTRAINT uq_redemptions_voucher_code UNIQUE (voucher_code_id),
        CONSTRAINT uq_redemptions_customer_product UNIQUE (customer_id, product_id),
        CONSTRAINT chk_redemptions_email_status CHECK (email_status IN ('pending', 'sent', 'failed'))
      )`);
    await q.query(`CREATE INDEX idx_redemptions_list ON redemptions (exported, redeemed_at DESC, id)`);
    await q.query(
      `CREATE INDEX idx_redemptions_status_list ON redemptions (exported, email_status, redeemed_at DESC, id)`,
    );
    await q.query(`CREATE INDEX idx_redemptions_product_redeemed ON redemptions (product_id, redeemed_at)`);
    await q.query(`CREATE INDEX idx_redemptions_redeemed_at ON redemptions (redeemed_at)`);
    await q.query(
      `CREATE INDEX idx_redemptions_pending_mail ON redemptions (redeemed_at) WHERE email_status = 'pending'`,
    );

    await q.query(`
      CREATE TABLE license_keys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        product_id uuid NOT NULL REFERENCES products(id) ON DELETE CASCADE,
        license_key varchar(64) NOT NULL,
        download_link varchar(2048) NOT NULL,
        license_type varchar(20) NOT NULL DEFAULT 'single-user',
        max_activations int NOT NULL DEFAULT 1,
        current_activations int NOT NULL DEFAULT 0,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_license_keys_product_key UNIQUE (product_id, license_key),
        CONSTRAINT chk_license_keys_type CHECK (license_type IN ('single-user', 'volume')),
        CONSTRAINT chk_license_keys_activations CHECK (current_activations >= 0 AND current_activations <= max_activations)
      )`);
    // The pool query: active keys of a product with room left, oldest first.
    await q.query(
      `CREATE INDEX idx_license_keys_pool ON license_keys (product_id, created_at, id) WHERE is_active AND current_activations < max_activations`,
    );

    await q.query(`
      CREATE TABLE license_assignments (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        license_key_id uuid NOT NULL REFERENCES license_keys(id) ON DELETE CASCADE,
        redemption_id uuid REFERENCES redemptions(id) ON DELETE SET NULL,
        assigned_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_license_assignments_key ON license_assignments (license_key_id)`);
    await q.query(`CREATE INDEX idx_license_assignments_redemption ON license_assignments (redemption_id)`);

    await q.query(`
      CREATE TABLE success_tokens (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        token varchar(64) NOT NULL,
        redemption_id uuid NOT NULL REFERENCES redemptions(id) ON DELETE CASCADE,
        customer_email varchar(254) NOT NULL,
        product_name varchar(200) NOT NULL,
        license_key varchar(100),
        download_link varchar(2048) NOT NULL DEFAULT '',
        is_manual_processing boolean NOT NULL DEFAULT false,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_success_tokens_token UNIQUE (token)
      )`);
    await q.query(`CREATE INDEX idx_success_tokens_redemption ON success_tokens (redemption_id)`);

    await q.query(`
      CREATE TABLE admin_users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        username varchar(50) NOT NULL,
        email varchar(254) NOT NULL,
        password_hash varchar(255) NOT NULL,
        salt varchar(32) NOT NULL,
        role varchar(20) NOT NULL DEFAULT 'admin',
        is_active boolean NOT NULL DEFAULT true,
        two_factor_secret varchar(32),
        two_factor_enabled boolean NOT NULL DEFAULT false,
        two_factor_last_step bigint,
        last_login_at timestamptz,
        failed_login_attempts int NOT NULL DEFAULT 0,
        locked_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_admin_users_username UNIQUE (username),
        CONSTRAINT uq_admin_users_email UNIQUE (email)
      )`);

    await q.query(`
      CREATE TABLE admin_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        admin_user_id uuid NOT NULL REFERENCES admin_users(id) ON DELETE CASCADE,
        token varchar(128) NOT NULL,
        refresh_token varchar(128) NOT NULL,
        ip_address varchar(45),
        user_agent varchar(500),
        is_active boolean NOT NULL DEFAULT true,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        last_used_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT uq_admin_sessions_token UNIQUE (token),
        CONSTRAINT uq_admin_sessions_refresh_token UNIQUE (refresh_token)
      )`);
    await q.query(`CREATE INDEX idx_admin_sessions_user ON admin_sessions (admin_user_id)`);

    await q.query(`
      CREATE TABLE security_audit_log (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        admin_user_id uuid,
        action varchar(100) NOT NULL,
        resource varchar(100),
        resource_id varchar(100),
        ip_address varchar(45),
        user_agent varchar(500),
        success boolean NOT NULL,
        details jsonb,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_security_audit_log_created ON security_audit_log (created_at)`);
    await q.query(`CREATE INDEX idx_security_audit_log_user ON security_audit_log (admin_user_id, created_at)`);

    await q.query(`
      CREATE TABLE blocked_ips (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        ip_address varchar(45) NOT NULL,
        reason varchar(255),
        blocked_at timestamptz NOT NULL DEFAULT now(),
        expires_at timestamptz,
        is_active boolean NOT NULL DEFAULT true,
        CONSTRAINT uq_blocked_ips_ip UNIQUE (ip_address)
      )`);

    await q.query(`
      CREATE TABLE email_logs (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        redemption_id uuid,
        provider varchar(50) NOT NULL,
        recipient varchar(254) NOT NULL,
        subject varchar(500) NOT NULL,
        status varchar(20) NOT NULL,
        error text,
        message_id varchar(255),
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`CREATE INDEX idx_email_logs_redemption ON email_logs (redemption_id)`);
    await q.query(`CREATE INDEX idx_email_logs_created ON email_logs (created_at)`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const table of [
      'email_logs',
      'blocked_ips',
      'security_audit_log',
      'admin_sessions',
      'admin_users',
      'success_tokens',
      'license_assignments',
      'license_keys',
      'redemptions',
      'customers',
      'voucher_codes',
      'products',
    ]) {
      await q.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
