import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The refusal e-mail's outbox (docs/product.md §25.3): a refused review's e-mail is `pending` until it is sent (or
 * finally `failed`), so the sweep queues again one whose job was lost. Nullable without a default: no rewrite.
 */
export class ReviewRefusalMail1796226723984 implements MigrationInterface {
  name = 'ReviewRefusalMail1796226723984';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE redemptions ADD COLUMN review_mail_status text,
         ADD CONSTRAINT chk_redemptions_review_mail_status CHECK (review_mail_status IN ('pending', 'sent', 'failed'))`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE redemptions DROP CONSTRAINT chk_redemptions_review_mail_status, DROP COLUMN review_mail_status`,
    );
  }
}
