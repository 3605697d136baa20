import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 28, the licence centre (docs/product.md §21, §21.3):
 * - `customer_access_links`: the sign-in links and the outbox of their e-mails;
 * - `customers.erased_at`, `redemptions.erased_at`: when the personal data was erased; an erased customer keeps its
 *   row (its redemptions stay for the accounts) without an e-mail, so `customers.email` may be null (the unique
 *   constraint lets any number of erased rows be null).
 */
export class CustomerCentre1763837000000 implements MigrationInterface {
  name = 'CustomerCentre1763837000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE customer_access_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        email varchar(254) NOT NULL,
        token_hash bytea,
        expires_at timestamptz,
        used_at timestamptz,
        status varchar(20) NOT NULL DEFAULT 'pending',
        attempts int NOT NULL DEFAULT 0,
        claimed_until timestamptz,
        created_at timestamptz NOT NULL DEFAULT now(),
        sent_at timestamptz,
        CONSTRAINT uq_customer_access_links_token_hash UNIQUE (token_hash),
        CONSTRAINT chk_customer_access_links_status CHECK (status IN ('pending', 'sent', 'failed'))
      )`);
    await q.query(
      `CREATE INDEX idx_customer_access_links_pending ON customer_access_links (created_at) WHERE status = 'pending'`,
    );
    await q.query(`CREATE INDEX idx_customer_access_links_email ON customer_access_links (email)`);
    await q.query(`ALTER TABLE customers ALTER COLUMN email DROP NOT NULL, ADD COLUMN erased_at timestamptz`);
    await q.query(`ALTER TABLE redemptions ADD COLUMN erased_at timestamptz`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions DROP COLUMN erased_at`);
    await q.query(
      `DELETE FROM customers WHERE email IS NULL AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.customer_id = customers.id)`,
    );
    await q.query(`ALTER TABLE customers DROP COLUMN erased_at`);
    await q.query(`DROP TABLE IF EXISTS customer_access_links`);
  }
}
