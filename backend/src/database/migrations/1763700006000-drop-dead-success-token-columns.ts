import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `success_tokens.license_key`, `download_link` and `is_manual_processing` were written by the redemption
 * statement and every licence assignment but never read: the success page reads the licence live from
 * `license_assignments` and the waiting state from `redemptions.awaiting_license`. Copies of a key that nobody
 * reads are only a second place for it to leak. (`customer_email` and `product_name` stay: the success page
 * shows them as they were at redemption time.)
 */
export class DropDeadSuccessTokenColumns1763700006000 implements MigrationInterface {
  name = 'DropDeadSuccessTokenColumns1763700006000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE success_tokens DROP COLUMN license_key, DROP COLUMN download_link, DROP COLUMN is_manual_processing`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE success_tokens
      ADD COLUMN license_key varchar(100),
      ADD COLUMN download_link varchar(2048) NOT NULL DEFAULT '',
      ADD COLUMN is_manual_processing boolean NOT NULL DEFAULT false`);
  }
}
