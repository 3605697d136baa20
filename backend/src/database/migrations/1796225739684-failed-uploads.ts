import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Failed uploads (docs/product.md §20.6): an upload whose load began and then failed on the server's side (the
 * client broke it off, the database ran out of space) is kept as a batch with its reason and no codes, so whoever
 * looks at the product's batches sees it failed. A nullable column without a default: no rewrite of the table.
 */
export class FailedUploads1796225739684 implements MigrationInterface {
  name = 'FailedUploads1796225739684';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER TABLE upload_batches ADD COLUMN failure varchar(500),
         ADD CONSTRAINT chk_upload_batches_failure CHECK (failure IS NULL OR inserted = 0)`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE upload_batches DROP CONSTRAINT chk_upload_batches_failure, DROP COLUMN failure`);
  }
}
