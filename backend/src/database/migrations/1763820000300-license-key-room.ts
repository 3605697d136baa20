import { MigrationInterface, QueryRunner } from 'typeorm';
import { counterFunctions, KEY_ROOM } from './1763820000000-counters';
import { SKIP_COUNTED_STATEMENT } from './1763820000200-redemption-counts-itself';

/**
 * The pool forecast's free activations per product from the counters (issue 12: the forecast at ten million keys):
 * `license_key_counts.room` = Σ (max_activations − current_activations) over the active pool keys (MANUAL_ keys, which
 * never hold room, are left out as for the other figures). Kept by the license_keys trigger and by the redemption's
 * statement (a key taken: room − 1).
 */
export class LicenseKeyRoom1763820000300 implements MigrationInterface {
  name = 'LicenseKeyRoom1763820000300';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE license_keys IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`ALTER TABLE license_key_counts ADD COLUMN room bigint NOT NULL DEFAULT 0`);
    await q.query(`INSERT INTO license_key_counts AS c (product_id, shard, room)
      SELECT x.product_id, 0, sum(room) FROM (SELECT x.product_id, ${KEY_ROOM} FROM license_keys x WHERE NOT x.is_manual) x
       GROUP BY x.product_id
      ON CONFLICT (product_id, shard) DO UPDATE SET room = EXCLUDED.room`);
    for (const sql of counterFunctions(SKIP_COUNTED_STATEMENT, true)) await q.query(sql);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const sql of counterFunctions(SKIP_COUNTED_STATEMENT)) await q.query(sql);
    await q.query(`ALTER TABLE license_key_counts DROP COLUMN room`);
  }
}
