/**
 * What the application's writers keep in their own statements, rebuilt for rows a benchmark seeded by SQL (bulk
 * INSERTs keep nothing): the counters (issue 26, no counter triggers) and the list of available codes
 * (docs/architecture.md "A code's state").
 */
import { Client } from 'pg';
import { CODE_STATUS_SQL } from '../backend/src/modules/voucher/code-status.sql';

/**
 * Lists the available codes of the products `$1` (uuid[]) that are not listed yet (`available_codes`,
 * docs/architecture.md "A code's state"), for codes a benchmark seeded by SQL: the upload lists the codes it adds, a
 * seed's bulk INSERT does not.
 */
export const LIST_AVAILABLE_CODES_SQL = `INSERT INTO available_codes (product_id, seq, voucher_code_id)
  SELECT v.product_id, v.seq, v.id FROM voucher_codes v
   WHERE v.product_id = ANY($1::uuid[]) AND ${CODE_STATUS_SQL.available} ORDER BY v.product_id, v.seq
  ON CONFLICT DO NOTHING`;

/** The list of available codes of `productIds` rebuilt from their codes (`LIST_AVAILABLE_CODES_SQL`). */
export async function listAvailableCodes(pg: Client, productIds: string[]): Promise<void> {
  await pg.query(`DELETE FROM available_codes WHERE product_id = ANY($1::uuid[])`, [productIds]);
  await pg.query(LIST_AVAILABLE_CODES_SQL, [productIds]);
}

/**
 * The counters of `productIds` rebuilt from count(*) (shard 0), and their list of available codes, for rows a
 * benchmark seeded by SQL: the application's writers count themselves in their own statements (issue 26, no counter
 * triggers), a seed's bulk INSERTs do not. One transaction with the counted tables locked against writers.
 */
export async function recountCounters(pg: Client, productIds: string[]): Promise<void> {
  await pg.query('BEGIN');
  try {
    await pg.query(`LOCK TABLE voucher_codes, redemptions, license_keys IN SHARE MODE`);
    await listAvailableCodes(pg, productIds);
    for (const table of ['product_counts', 'redemption_day_counts', 'license_key_counts']) {
      await pg.query(`DELETE FROM ${table} WHERE product_id = ANY($1::uuid[])`, [productIds]);
    }
    await pg.query(
      `INSERT INTO product_counts (product_id, batch_id, shard, available, redeemed, void)
       SELECT v.product_id, coalesce(v.batch_id, v.product_id), 0, count(*) FILTER (WHERE ${CODE_STATUS_SQL.available}),
              count(*) FILTER (WHERE ${CODE_STATUS_SQL.redeemed}), count(*) FILTER (WHERE ${CODE_STATUS_SQL.void})
         FROM voucher_codes v WHERE v.product_id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [productIds],
    );
    await pg.query(
      `INSERT INTO product_counts AS c (product_id, batch_id, shard, redemptions, exported)
       SELECT r.product_id, coalesce(v.batch_id, r.product_id), 0, count(*), count(*) FILTER (WHERE r.exported)
         FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE r.product_id = ANY($1::uuid[]) GROUP BY 1, 2
       ON CONFLICT (product_id, batch_id, shard) DO UPDATE SET redemptions = EXCLUDED.redemptions, exported = EXCLUDED.exported`,
      [productIds],
    );
    await pg.query(
      `INSERT INTO redemption_day_counts (day, product_id, shard, redemptions)
       SELECT (r.redeemed_at AT TIME ZONE z.time_zone)::date, r.product_id, 0, count(*)
         FROM redemptions r, stats_settings z WHERE r.product_id = ANY($1::uuid[]) GROUP BY 1, 2`,
      [productIds],
    );
    await pg.query(
      `INSERT INTO license_key_counts (product_id, shard, total, active, available, partially_used, fully_used, room)
       SELECT product_id, 0, count(*), count(*) FILTER (WHERE is_active), count(*) FILTER (WHERE current_activations = 0),
              count(*) FILTER (WHERE current_activations > 0 AND current_activations < max_activations),
              count(*) FILTER (WHERE current_activations >= max_activations),
              coalesce(sum(max_activations - current_activations) FILTER (WHERE is_active), 0)
         FROM license_keys WHERE NOT is_manual AND product_id = ANY($1::uuid[]) GROUP BY 1`,
      [productIds],
    );
    await pg.query('COMMIT');
  } catch (err) {
    await pg.query('ROLLBACK');
    throw err;
  }
}
