import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The codes' unique index becomes a `text_pattern_ops` b-tree (issue 26; docs/benchmarks.md "A code's start"): it
 * answers equality as before (the redemption's lookup, the upload's `ON CONFLICT (code)`) and the start of a code
 * (`code LIKE 'RC3333%'`, the redemption search's "start of a word", docs/product.md §11.12) as one range, where a
 * code containing the term needed the trigram index: tens of milliseconds at ten million codes. A unique constraint
 * cannot name an operator class: it is a unique index now, which `ON CONFLICT (code)` infers as before. Comparisons
 * are bytewise: the upload sorts its codes the same way (`COLLATE "C"`), so the index is still written in order.
 */
export class CodesByTheirStart1763847000000 implements MigrationInterface {
  name = 'CodesByTheirStart1763847000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE UNIQUE INDEX uq_voucher_codes_code_pattern ON voucher_codes (code text_pattern_ops)`);
    await q.query(`ALTER TABLE voucher_codes DROP CONSTRAINT uq_voucher_codes_code`);
    await q.query(`ALTER INDEX uq_voucher_codes_code_pattern RENAME TO uq_voucher_codes_code`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP INDEX uq_voucher_codes_code`);
    await q.query(`ALTER TABLE voucher_codes ADD CONSTRAINT uq_voucher_codes_code UNIQUE (code)`);
  }
}
