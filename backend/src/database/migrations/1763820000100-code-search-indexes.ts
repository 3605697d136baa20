import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Issue 12, the upload's cost of the code search. Inserting into the GIN trigram index over every code, a few
 * entries at a time, was 58% of an upload's time (200,000 codes by INSERT … SELECT: 11.1 s with it, 4.7 s without,
 * 4.0 s into a table with only the primary key and the unique code index; the counter triggers added nothing
 * measurable). With a pending list large enough for a whole upload (GIN's fast update), the upload only appends
 * to the list (6.4 s against 7.8 s without the index, in the same run), and merging the list into the index
 * afterwards in one pass (`gin_clean_pending_list`, which VoucherUploadService starts after each upload; vacuum
 * does it too) took 1.2 s. Every search keeps its index; a search while a list waits reads the list as well
 * (127 ms at 200,000 codes), for the few seconds until it is merged.
 */
export const CODE_TRGM_PENDING_LIST_KB = 1024 * 1024;

export class CodeSearchIndexes1763820000100 implements MigrationInterface {
  name = 'CodeSearchIndexes1763820000100';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(
      `ALTER INDEX idx_voucher_codes_code_trgm SET (fastupdate = on, gin_pending_list_limit = ${CODE_TRGM_PENDING_LIST_KB})`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER INDEX idx_voucher_codes_code_trgm RESET (fastupdate, gin_pending_list_limit)`);
  }
}
