import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The review's decisions (docs/product.md §25.3): a held redemption staff decided keeps the decision and its time
 * (a second reviewer is told who was first: 409), and a case waiting past the two-hour promise is alerted once
 * (`review_alerted_at`, docs/product.md §25.4). Nullable columns without a default: no rewrite of the table.
 */
export class ReviewDecisions1796223746948 implements MigrationInterface {
  name = 'ReviewDecisions1796223746948';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE redemptions ADD COLUMN reviewed_at timestamptz, ADD COLUMN review_decision text,
         ADD COLUMN review_alerted_at timestamptz,
         ADD CONSTRAINT chk_redemptions_review_decision CHECK (review_decision IN ('approved', 'refused'))`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE redemptions DROP CONSTRAINT chk_redemptions_review_decision, DROP COLUMN review_alerted_at,
         DROP COLUMN review_decision, DROP COLUMN reviewed_at`,
    );
  }
}
