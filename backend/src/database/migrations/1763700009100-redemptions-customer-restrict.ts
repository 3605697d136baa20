import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `redemptions.customer_id` was ON DELETE CASCADE: a customer purge racing a redemption by that customer
 * could delete the new redemption with it. RESTRICT makes that impossible whatever the purge does.
 * (Migrations run one transaction each, so the constraint is re-added and validated in one step.)
 */
export class RedemptionsCustomerRestrict1763700009100 implements MigrationInterface {
  name = 'RedemptionsCustomerRestrict1763700009100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions DROP CONSTRAINT redemptions_customer_id_fkey,
      ADD CONSTRAINT redemptions_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id) ON DELETE RESTRICT`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions DROP CONSTRAINT redemptions_customer_id_fkey,
      ADD CONSTRAINT redemptions_customer_id_fkey FOREIGN KEY (customer_id) REFERENCES customers(id) ON DELETE CASCADE`);
  }
}
