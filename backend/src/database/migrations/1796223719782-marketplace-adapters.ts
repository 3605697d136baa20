import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A marketplace connection's adapter (docs/product.md §24.4): `generic` speaks the project's own protocol, `appsumo`
 * reads AppSumo's licensing webhooks.
 */
export class MarketplaceAdapters1796223719782 implements MigrationInterface {
  name = 'MarketplaceAdapters1796223719782';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE marketplace_connections ADD COLUMN IF NOT EXISTS adapter varchar(20) NOT NULL DEFAULT 'generic'`,
    );
    await q.query(
      `ALTER TABLE marketplace_connections ADD CONSTRAINT chk_marketplace_connections_adapter
         CHECK (adapter IN ('generic', 'appsumo'))`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE marketplace_connections DROP CONSTRAINT IF EXISTS chk_marketplace_connections_adapter`);
    await q.query(`ALTER TABLE marketplace_connections DROP COLUMN IF EXISTS adapter`);
  }
}
