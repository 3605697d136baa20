import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Webhooks (issue 11, docs/product.md §20.4): the registered endpoints (secret sealed under DATA_KEY) and the delivery
 * outbox with its log. Both tables start empty, so the indexes are built inline.
 */
export class Webhooks1763821000000 implements MigrationInterface {
  name = 'Webhooks1763821000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE webhook_endpoints (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        url varchar(2000) NOT NULL,
        events text[] NOT NULL,
        secret_ciphertext bytea NOT NULL,
        is_active boolean NOT NULL DEFAULT true,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await q.query(`
      CREATE TABLE webhook_deliveries (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        endpoint_id uuid NOT NULL,
        event varchar(64) NOT NULL,
        payload jsonb NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        response_status integer,
        response_body varchar(1024),
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        delivered_at timestamptz,
        CONSTRAINT chk_webhook_deliveries_status CHECK (status IN ('pending', 'delivered', 'failed')),
        CONSTRAINT webhook_deliveries_endpoint_id_fkey FOREIGN KEY (endpoint_id) REFERENCES webhook_endpoints(id) ON DELETE CASCADE
      )`);
    await q.query(
      `CREATE INDEX idx_webhook_deliveries_endpoint_created ON webhook_deliveries (endpoint_id, created_at)`,
    );
    await q.query(
      `CREATE INDEX idx_webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS webhook_deliveries`);
    await q.query(`DROP TABLE IF EXISTS webhook_endpoints`);
  }
}
