import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The order e-mail's Message-ID is `<redemption-<id>-<resends>@<domain>>` (docs/operations.md "Order e-mail delivery"):
 * a copy sent again after a crash is the same message, an e-mail asked for again (a resend) is a new one. A column
 * with a constant default is added without rewriting the table.
 */
export class OrderEmailResends1763838000000 implements MigrationInterface {
  name = 'OrderEmailResends1763838000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions ADD COLUMN email_resends int NOT NULL DEFAULT 0`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE redemptions DROP COLUMN email_resends`);
  }
}
