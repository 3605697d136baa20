/**
 * The counters' write side (docs/architecture.md "Counters", issue 26): every statement that changes what a counter
 * counts adds its own delta in a data-modifying CTE of the same statement (no triggers on the counted tables since
 * migration 1763839000000). These builders write the CTE bodies once; each owner's repository puts them into its
 * statements, which name the rows changed (RETURNING, or a row-locked MATERIALIZED CTE of the old values).
 *
 * - A counter row is `(…, pg_backend_pid() % COUNTER_SHARDS)`: concurrent writers on different connections update
 *   different rows (no hot row); readers sum the shards. Exports write shards COUNTER_SHARDS…2·COUNTER_SHARDS−1
 *   (`markAndSelect`), which no other writer uses.
 * - Each upsert groups its rows, skips groups whose figures did not change, and writes in key order; a statement that
 *   writes two counter tables takes `product_counts` rows before `redemption_day_counts` rows before
 *   `license_key_counts` rows (the later CTE reads the earlier one's RETURNING, so it runs after it): two writers
 *   sharing a shard wait for each other, never deadlock.
 * - Nothing imports a module: the counter tables belong to product (`product_counts`), stats
 *   (`redemption_day_counts`) and license (`license_key_counts`); the writers are the owners of the counted tables.
 */
export const COUNTER_SHARDS = 32;
/** The writer's shard. */
export const COUNTER_SHARD = `(pg_backend_pid() % ${COUNTER_SHARDS})::smallint`;

/** A code's state as 0/±1 columns `available, redeemed, void` of a voucher_codes row `x` (CODE_STATUS_SQL's predicates). */
export function codeStateSql(x: string, sign: 1 | -1 = 1): string {
  const s = sign === 1 ? '' : '-';
  return `${s}(NOT ${x}.is_redeemed AND ${x}.voided_at IS NULL)::int AS available, ${s}${x}.is_redeemed::int AS redeemed,
          ${s}(${x}.voided_at IS NOT NULL)::int AS void`;
}

/**
 * A pool key's figures as ±1 columns (`total, active, available, partially_used, fully_used, room`) from the
 * expressions of its `active`, `current` and `max` activations (the list's usage states; room: free activations of an
 * active key). MANUAL_ keys are never counted: the caller filters them out.
 */
export function keyStateSql(key: { active: string; current: string; max: string }, sign: 1 | -1 = 1): string {
  const s = sign === 1 ? '' : '-';
  const { active, current, max } = key;
  return `${s}1 AS total, ${s}(${active})::int AS active, ${s}(${current} = 0)::int AS available,
          ${s}(${current} > 0 AND ${current} < ${max})::int AS partially_used, ${s}(${current} >= ${max})::int AS fully_used,
          ${s}CASE WHEN ${active} THEN ${max} - ${current} ELSE 0 END AS room`;
}

/** `keyStateSql` of a license_keys row `x`. */
export function keyRowStateSql(x: string, sign: 1 | -1 = 1): string {
  return keyStateSql(
    { active: `${x}.is_active`, current: `${x}.current_activations`, max: `${x}.max_activations` },
    sign,
  );
}

export const KEY_FIGURES = ['total', 'active', 'available', 'partially_used', 'fully_used', 'room'];

/** The grouped, ordered upsert of `source`'s signed rows into `table` (RETURNING the keys written). */
function upsert(table: string, key: string[], figures: string[], source: string, shard: string): string {
  const keys = key.map((k) => `d.${k}`).join(', ');
  return `INSERT INTO ${table} AS c (${key.join(', ')}, shard, ${figures.join(', ')})
    SELECT ${keys}, ${shard}, ${figures.map((f) => `sum(d.${f})`).join(', ')}
      FROM (${source}) d
     GROUP BY ${keys}
    HAVING ${figures.map((f) => `sum(d.${f}) <> 0`).join(' OR ')}
     ORDER BY ${keys}
    ON CONFLICT (${key.join(', ')}, shard) DO UPDATE SET ${figures.map((f) => `${f} = c.${f} + EXCLUDED.${f}`).join(', ')}
    RETURNING ${key.map((k) => `c.${k}`).join(', ')}`;
}

/**
 * `product_counts` (per product and upload batch): `source` yields `product_id, batch_id` and the signed `figures`
 * (of available, redeemed, void, redemptions, exported) per changed row.
 */
export function productCountsDeltaSql(source: string, figures: string[], shard = COUNTER_SHARD): string {
  return upsert('product_counts', ['product_id', 'batch_id'], figures, source, shard);
}

/** `redemption_day_counts`: `source` yields `day, product_id, redemptions` (signed) per changed redemption. */
export function dayCountsDeltaSql(source: string): string {
  return upsert('redemption_day_counts', ['day', 'product_id'], ['redemptions'], source, COUNTER_SHARD);
}

/** `license_key_counts`: `source` yields `product_id` and the KEY_FIGURES (signed) per changed pool key. */
export function keyCountsDeltaSql(source: string): string {
  return upsert('license_key_counts', ['product_id'], KEY_FIGURES, source, COUNTER_SHARD);
}

/** The local day of a redemption's `redeemed_at` expression, in the statistics' zone (`stats_settings`). */
export function localDaySql(redeemedAt: string): string {
  return `(${redeemedAt} AT TIME ZONE (SELECT z.time_zone FROM stats_settings z))::date`;
}

/**
 * The counter CTEs of a statement that inserts (`sign` 1) or deletes (−1) redemptions: `rows` names a CTE with the
 * redemptions' `product_id, voucher_code_id, redeemed_at, exported` (RETURNING of the INSERT or DELETE). Adds the
 * redemption and exported figures to the code's batch (the code outlives its redemption: ON DELETE RESTRICT), then the
 * local days. Answers `, <prefix>_pc AS (…), <prefix>_dc AS (…)` to append to the statement's WITH list.
 */
export function redemptionCountsCtes(rows: string, sign: 1 | -1, prefix = 'counted'): string {
  const s = sign === 1 ? '' : '-';
  return `, ${prefix}_pc AS (
    ${productCountsDeltaSql(
      `SELECT x.product_id, coalesce(v.batch_id, x.product_id) AS batch_id, ${s}1 AS redemptions,
              ${s}x.exported::int AS exported
         FROM ${rows} x LEFT JOIN voucher_codes v ON v.id = x.voucher_code_id`,
      ['redemptions', 'exported'],
    )}
  ), ${prefix}_dc AS (
    ${dayCountsDeltaSql(
      `SELECT ${localDaySql('x.redeemed_at')} AS day, x.product_id, ${s}1 AS redemptions
         FROM ${rows} x WHERE (SELECT count(*) FROM ${prefix}_pc) >= 0`,
    )}
  )`;
}
