import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 11 (docs/product.md §20.2, §20.3):
 * - `pool_alerts`: the outbox of the low-pool e-mails, one row per product, admin and day (the unique constraint is
 *   the "once a day" rule); pending rows are found again by the sweep through the partial index.
 * - Redemption history reads the audit trail of one redemption: single-redemption actions carry it in
 *   `resource_id` (idx_security_audit_log_resource, only rows that name a resource), bulk actions in
 *   `details.redemptionIds` (GIN over that array, only rows that have one: most audit rows are logins and
 *   stay out of both indexes).
 */
export class PoolAlertsAndHistory1763822000000 implements MigrationInterface {
  name = 'PoolAlertsAndHistory1763822000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE pool_alerts (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        product_id uuid NOT NULL,
        admin_user_id uuid NOT NULL,
        alert_day date NOT NULL,
        recipient varchar(254) NOT NULL,
        product_name varchar(255) NOT NULL,
        available_activations int NOT NULL,
        redeemed_last_7_days int NOT NULL,
        days_left int,
        status varchar(20) NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        CONSTRAINT uq_pool_alerts_product_admin_day UNIQUE (product_id, admin_user_id, alert_day),
        CONSTRAINT chk_pool_alerts_status CHECK (status IN ('pending', 'sent', 'failed')),
        CONSTRAINT pool_alerts_product_id_fkey FOREIGN KEY (product_id) REFERENCES products(id) ON DELETE CASCADE,
        CONSTRAINT pool_alerts_admin_user_id_fkey FOREIGN KEY (admin_user_id) REFERENCES admin_users(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_pool_alerts_pending ON pool_alerts (created_at) WHERE status = 'pending'`);
    await q.query(`CREATE INDEX idx_pool_alerts_admin_user ON pool_alerts (admin_user_id)`);
    await q.query(
      `CREATE INDEX idx_security_audit_log_resource ON security_audit_log (resource_id, created_at) WHERE resource_id IS NOT NULL`,
    );
    await q.query(
      `CREATE INDEX idx_security_audit_log_redemption_ids ON security_audit_log USING gin ((details -> 'redemptionIds') jsonb_path_ops)
        WHERE details ? 'redemptionIds'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX IF EXISTS idx_security_audit_log_redemption_ids`);
    await q.query(`DROP INDEX IF EXISTS idx_security_audit_log_resource`);
    await q.query(`DROP TABLE IF EXISTS pool_alerts`);
  }
}
