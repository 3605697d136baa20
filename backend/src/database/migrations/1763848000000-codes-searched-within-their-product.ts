import { MigrationInterface, QueryRunner } from 'typeorm';
import { CODE_TRGM_PENDING_LIST_KB } from './1763820000100-code-search-indexes';

/**
 * The code trigram index leads with the product (issue 26; docs/benchmarks.md "A start only another product's codes
 * have"): `(product_id, code gin_trgm_ops)`, a GIN index over both (btree_gin, a trusted extension as pg_trgm is).
 * A product's codes screen searched for `PROMO24-`, which 100,000 Windows codes start with
 * and no Mac code holds, found the Mac codes containing it by reading every Mac code (76 ms at one million
 * redemptions): PostgreSQL's estimate of a pattern ignores the product. The index now answers the product and the
 * pattern together (16 ms). The redemption list's search of a code without a product reads it as it read the old
 * one: a GIN index over several columns serves a condition on any of them. One entry more per code, written the same
 * way (the pending list an upload appends to, merged after it).
 */
export class CodesSearchedWithinTheirProduct1763848000000 implements MigrationInterface {
  name = 'CodesSearchedWithinTheirProduct1763848000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE EXTENSION IF NOT EXISTS btree_gin`);
    await this.replace(q, '(product_id, code gin_trgm_ops)');
  }

  public async down(q: QueryRunner): Promise<void> {
    await this.replace(q, '(code gin_trgm_ops)');
  }

  private async replace(q: QueryRunner, columns: string): Promise<void> {
    await q.query(
      `CREATE INDEX idx_voucher_codes_code_trgm_next ON voucher_codes USING gin ${columns}
         WITH (fastupdate = on, gin_pending_list_limit = ${CODE_TRGM_PENDING_LIST_KB})`,
    );
    await q.query(`DROP INDEX idx_voucher_codes_code_trgm`);
    await q.query(`ALTER INDEX idx_voucher_codes_code_trgm_next RENAME TO idx_voucher_codes_code_trgm`);
  }
}
