import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Marketplace connections (docs/product.md §24, docs/marketplaces.md): the connections (secret sealed under DATA_KEY),
 * the products each serves with the marketplace's reference, the inbound event ids applied (idempotency), and the
 * report outbox. All start empty, so the indexes are built inline; nothing else is touched.
 */
export class MarketplaceConnections1796189638662 implements MigrationInterface {
  name = 'MarketplaceConnections1796189638662';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE marketplace_connections (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        name varchar(100) NOT NULL,
        base_url varchar(2000) NOT NULL,
        secret_ciphertext bytea NOT NULL,
        check_at_redeem boolean NOT NULL DEFAULT false,
        report_redemptions boolean NOT NULL DEFAULT true,
        on_unreachable varchar(10) NOT NULL DEFAULT 'accept',
        pull_interval_seconds integer NOT NULL DEFAULT 0,
        pull_cursor varchar(500),
        next_pull_at timestamptz,
        last_pull_at timestamptz,
        last_pull_error varchar(500),
        last_event_at timestamptz,
        codes_received integer NOT NULL DEFAULT 0,
        redeemed integer NOT NULL DEFAULT 0,
        refunds_applied integer NOT NULL DEFAULT 0,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT chk_marketplace_connections_on_unreachable CHECK (on_unreachable IN ('accept', 'refuse')),
        CONSTRAINT pk_marketplace_connections PRIMARY KEY (id)
      )`);
    await q.query(`
      CREATE TABLE marketplace_products (
        product_id uuid NOT NULL,
        connection_id uuid NOT NULL,
        external_ref varchar(200) NOT NULL,
        CONSTRAINT pk_marketplace_products PRIMARY KEY (product_id),
        CONSTRAINT uq_marketplace_products_ref UNIQUE (connection_id, external_ref),
        CONSTRAINT marketplace_products_connection_id_fkey FOREIGN KEY (connection_id)
          REFERENCES marketplace_connections(id) ON DELETE CASCADE,
        CONSTRAINT marketplace_products_product_id_fkey FOREIGN KEY (product_id) REFERENCES products(id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE marketplace_events (
        connection_id uuid NOT NULL,
        event_id varchar(200) NOT NULL,
        type varchar(40) NOT NULL,
        applied integer NOT NULL DEFAULT 0,
        received_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_marketplace_events PRIMARY KEY (connection_id, event_id),
        CONSTRAINT marketplace_events_connection_id_fkey FOREIGN KEY (connection_id)
          REFERENCES marketplace_connections(id) ON DELETE CASCADE
      )`);
    await q.query(`
      CREATE TABLE marketplace_reports (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        connection_id uuid NOT NULL,
        kind varchar(20) NOT NULL,
        redemption_id uuid NOT NULL,
        code varchar(100) NOT NULL,
        external_ref varchar(200) NOT NULL,
        redeemed_at timestamptz NOT NULL,
        status varchar(20) NOT NULL DEFAULT 'pending',
        attempts integer NOT NULL DEFAULT 0,
        next_attempt_at timestamptz NOT NULL DEFAULT now(),
        claimed_until timestamptz,
        last_error varchar(500),
        created_at timestamptz NOT NULL DEFAULT now(),
        acked_at timestamptz,
        CONSTRAINT pk_marketplace_reports PRIMARY KEY (id),
        CONSTRAINT uq_marketplace_reports_kind_redemption UNIQUE (kind, redemption_id),
        CONSTRAINT chk_marketplace_reports_kind CHECK (kind IN ('redemption', 'refund', 'recheck')),
        CONSTRAINT chk_marketplace_reports_status CHECK (status IN ('pending', 'acked', 'dead')),
        CONSTRAINT marketplace_reports_connection_id_fkey FOREIGN KEY (connection_id)
          REFERENCES marketplace_connections(id) ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX idx_marketplace_reports_connection_code ON marketplace_reports (connection_id, code)`);
    await q.query(
      `CREATE INDEX idx_marketplace_reports_due ON marketplace_reports (next_attempt_at) WHERE status = 'pending'`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE IF EXISTS marketplace_reports`);
    await q.query(`DROP TABLE IF EXISTS marketplace_events`);
    await q.query(`DROP TABLE IF EXISTS marketplace_products`);
    await q.query(`DROP TABLE IF EXISTS marketplace_connections`);
  }
}
