import { MigrationInterface, QueryRunner } from 'typeorm';
import { counterFunctions, statementTriggers } from './1763820000000-counters';
import { SKIP_COUNTED_STATEMENT } from './1763820000200-redemption-counts-itself';
import { codeCounter, redemptionCounter, redemptionMoved } from './1763823000000-upload-batches';

/**
 * No triggers on the counted tables (issue 26, docs/architecture.md "Counters"): every writer of `voucher_codes`,
 * `redemptions` and `license_keys` adds its counter delta in its own statement (a data-modifying CTE built by
 * `common/utils/counters-sql.ts`), as the redemption statement already did. Statement triggers with transition tables
 * made PostgreSQL keep every changed row of every statement, the redemption's included, although their functions
 * returned at once for it: about 37% of the redemption statement's throughput (docs/benchmarks.md "Issue 12").
 *
 * The counters stay as they are: exact before (the triggers) and after (the writers). The tables are locked while the
 * triggers go, so no statement runs half under one regime. The row trigger that moved a redemption's day (nothing in
 * the application moves one) and the TRUNCATE triggers (Clean System resets the counters itself) go too.
 * `fold_redemption_day_counts()` and the products' "before batches" trigger stay: they count nothing.
 *
 * An instance of an older version still running (a rolling deploy) would write without counting: stop them first.
 * `down` puts the triggers back (the functions as migrations 1763820000300 and 1763823000000 left them).
 */
const TRIGGERS: Array<[string, string[]]> = [
  ['voucher_codes', ['insert', 'update', 'delete', 'truncate']],
  ['redemptions', ['insert', 'delete', 'truncate', 'moved']],
  ['license_keys', ['insert', 'update', 'delete', 'truncate']],
];

export class CountersWithoutTriggers1763839000000 implements MigrationInterface {
  name = 'CountersWithoutTriggers1763839000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE voucher_codes, redemptions, license_keys IN SHARE ROW EXCLUSIVE MODE`);
    for (const [table, events] of TRIGGERS) {
      for (const e of events) await q.query(`DROP TRIGGER trg_${table}_count_${e} ON ${table}`);
    }
    await q.query(
      `DROP FUNCTION count_license_keys(), count_redemption_moved(), count_redemptions(), count_voucher_codes()`,
    );
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE voucher_codes, redemptions, license_keys IN SHARE ROW EXCLUSIVE MODE`);
    const [, , keys] = counterFunctions(SKIP_COUNTED_STATEMENT, true);
    for (const sql of [codeCounter(true), redemptionCounter(true), redemptionMoved(true), keys]) await q.query(sql);
    for (const sql of [
      ...statementTriggers('voucher_codes', 'count_voucher_codes', ['INSERT', 'UPDATE', 'DELETE']),
      ...statementTriggers('redemptions', 'count_redemptions', ['INSERT', 'DELETE']),
      ...statementTriggers('license_keys', 'count_license_keys', ['INSERT', 'UPDATE', 'DELETE']),
    ]) {
      await q.query(sql);
    }
    await q.query(`CREATE TRIGGER trg_redemptions_count_moved AFTER UPDATE OF redeemed_at, product_id ON redemptions
      FOR EACH ROW WHEN (OLD.redeemed_at IS DISTINCT FROM NEW.redeemed_at OR OLD.product_id IS DISTINCT FROM NEW.product_id)
      EXECUTE FUNCTION count_redemption_moved()`);
  }
}
