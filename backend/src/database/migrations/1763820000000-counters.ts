import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Counters that stay exact without a hot row (issue 12): the product list, the statistics and the licence-key
 * summary read a handful of counter rows instead of counting millions.
 *
 * - `product_counts (product_id, shard)`: codes available / redeemed / void and redemptions per product;
 * - `redemption_day_counts (day, product_id, shard)`: redemptions per local day (in `stats_settings.time_zone`,
 *   which the application keeps equal to its TIME_ZONE, rebuilding the days when it changes);
 * - `license_key_counts (product_id, shard)`: the pool summary (keys that are not MANUAL_).
 *
 * They are kept by triggers on the counted tables, so every writer (the redemption's one statement, the upload's
 * INSERT … SELECT, voids, deletes, retention, product deletes' cascades, Clean System's TRUNCATE) keeps them exact
 * in its own transaction. Statement-level triggers read the statement's transition tables and write one
 * aggregated delta per product: a 1,000,000-code upload costs one grouped INSERT, not a million. A counter row is
 * chosen by `pg_backend_pid() % SHARDS`: concurrent redemptions of one product, on different connections, update
 * different rows; a reader sums the shards. Past days' shards are folded into shard 0 by
 * `fold_redemption_day_counts()` (run with retention), so a period reads about one row per product and day.
 * No foreign keys: a product's delete cascades to its codes, whose trigger runs after the product is gone; the
 * readers join `products`, and a deleted product's rows are all zero.
 */
export const COUNTER_SHARDS = 32;
const SHARD = `(pg_backend_pid() % ${COUNTER_SHARDS})::smallint`;

/** Code state as 0/1 columns of a voucher_codes row `x` (CODE_STATUS_SQL's predicates). */
const CODE_STATE = `(NOT x.is_redeemed AND x.voided_at IS NULL)::int AS available, x.is_redeemed::int AS redeemed,
                    (x.voided_at IS NOT NULL)::int AS void`;
/** Pool summary columns of a license_keys row `x` (the list's usage states, MANUAL_ keys left out). */
const KEY_STATE = `1 AS total, x.is_active::int AS active, (x.current_activations = 0)::int AS available,
                   (x.current_activations > 0 AND x.current_activations < x.max_activations)::int AS partially_used,
                   (x.current_activations >= x.max_activations)::int AS fully_used`;
/** Activations a redemption could still take from a key row `x` (migration 1763820000300). */
export const KEY_ROOM = `CASE WHEN x.is_active THEN x.max_activations - x.current_activations ELSE 0 END AS room`;

/** The signed rows of a statement: +1 for each new row, -1 for each old one, per trigger operation. */
function signedRows(columns: string, where = 'true'): Record<'INSERT' | 'UPDATE' | 'DELETE', string> {
  const side = (table: string, sign: number) =>
    `SELECT x.product_id, ${sign} AS sign, ${columns} FROM ${table} x WHERE ${where}`;
  return {
    INSERT: side('new_rows', 1),
    DELETE: side('old_rows', -1),
    UPDATE: `${side('new_rows', 1)} UNION ALL ${side('old_rows', -1)}`,
  };
}

/**
 * A statement trigger function adding the signed rows' sums to `table` per product (in product order: two
 * statements never lock each other's counter rows in opposite orders), skipping products whose figures did not
 * change (a volume key that stays partially used, a void of nothing).
 */
function deltaFunction(
  name: string,
  table: string,
  figures: string[],
  columns: string,
  where?: string,
  guard = '',
): string {
  const rows = signedRows(columns, where);
  const upsert = (source: string) => `
    INSERT INTO ${table} AS c (product_id, shard, ${figures.join(', ')})
    SELECT d.product_id, ${SHARD}, ${figures.map((f) => `sum(d.sign * d.${f})`).join(', ')}
      FROM (${source}) d
     GROUP BY d.product_id
    HAVING ${figures.map((f) => `sum(d.sign * d.${f}) <> 0`).join(' OR ')}
     ORDER BY d.product_id
    ON CONFLICT (product_id, shard) DO UPDATE SET ${figures.map((f) => `${f} = c.${f} + EXCLUDED.${f}`).join(', ')};`;
  return `CREATE OR REPLACE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${guard}
    IF TG_OP = 'INSERT' THEN ${upsert(rows.INSERT)}
    ELSIF TG_OP = 'UPDATE' THEN ${upsert(rows.UPDATE)}
    ELSIF TG_OP = 'DELETE' THEN ${upsert(rows.DELETE)}
    ELSE
      UPDATE ${table} SET ${figures.map((f) => `${f} = 0`).join(', ')};
    END IF;
    RETURN NULL;
  END $$`;
}

/** Statement triggers for INSERT, UPDATE, DELETE (each with its transition tables) and TRUNCATE. */
export function statementTriggers(table: string, fn: string, events: Array<'INSERT' | 'UPDATE' | 'DELETE'>): string[] {
  const referencing = {
    INSERT: 'NEW TABLE AS new_rows',
    UPDATE: 'OLD TABLE AS old_rows NEW TABLE AS new_rows',
    DELETE: 'OLD TABLE AS old_rows',
  };
  return [
    ...events.map(
      (e) => `CREATE TRIGGER trg_${table}_count_${e.toLowerCase()} AFTER ${e} ON ${table}
              REFERENCING ${referencing[e]} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
    ),
    `CREATE TRIGGER trg_${table}_count_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT EXECUTE FUNCTION ${fn}()`,
  ];
}

/** The local day of a redemption row `x`, in the statistics' zone `z`. */
const LOCAL_DAY = `(x.redeemed_at AT TIME ZONE z.time_zone)::date`;

/**
 * Redemptions: per product (all time) and per local day, from the signed rows `source` (product_id, sign, day).
 * Every writer takes product_counts rows before redemption_day_counts rows (and each in key order): a redemption
 * and a delete on two connections of the same shard can wait for each other, never deadlock.
 */
const REDEMPTION_DELTAS = (source: string) => `
    INSERT INTO product_counts AS c (product_id, shard, redemptions)
    SELECT d.product_id, ${SHARD}, sum(d.sign) FROM (${source}) d
     GROUP BY d.product_id HAVING sum(d.sign) <> 0 ORDER BY d.product_id
    ON CONFLICT (product_id, shard) DO UPDATE SET redemptions = c.redemptions + EXCLUDED.redemptions;
    INSERT INTO redemption_day_counts AS c (day, product_id, shard, redemptions)
    SELECT d.day, d.product_id, ${SHARD}, sum(d.sign) FROM (${source}) d
     GROUP BY d.day, d.product_id HAVING sum(d.sign) <> 0 ORDER BY d.day, d.product_id
    ON CONFLICT (day, product_id, shard) DO UPDATE SET redemptions = c.redemptions + EXCLUDED.redemptions;`;

const REDEMPTION_COUNTER = (
  guard: string,
) => `CREATE OR REPLACE FUNCTION count_redemptions() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${guard}
    IF TG_OP = 'INSERT' THEN ${REDEMPTION_DELTAS(`SELECT x.product_id, 1 AS sign, ${LOCAL_DAY} AS day FROM new_rows x, stats_settings z`)}
    ELSIF TG_OP = 'DELETE' THEN ${REDEMPTION_DELTAS(`SELECT x.product_id, -1 AS sign, ${LOCAL_DAY} AS day FROM old_rows x, stats_settings z`)}
    ELSE
      DELETE FROM redemption_day_counts;
      UPDATE product_counts SET redemptions = 0;
    END IF;
    RETURN NULL;
  END $$`;

/*
 * Nothing moves a redemption to another day or product today; should anything, this row trigger (which fires only
 * when one of the two columns is in an UPDATE's SET list, so the e-mail outbox's updates never run it) keeps the
 * counters right. A statement trigger with transition tables cannot be limited to columns.
 */
const REDEMPTION_MOVED = `CREATE FUNCTION count_redemption_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${REDEMPTION_DELTAS(`SELECT OLD.product_id, -1 AS sign, (OLD.redeemed_at AT TIME ZONE z.time_zone)::date AS day
                               FROM stats_settings z
                             UNION ALL SELECT NEW.product_id, 1, (NEW.redeemed_at AT TIME ZONE z.time_zone)::date
                               FROM stats_settings z`)}
    RETURN NULL;
  END $$`;

/**
 * Folds the shards of days before yesterday into shard 0 and drops those days' rows that count nothing (days
 * emptied by retention); answers the rows folded. One transaction: every reader sees the same sums.
 */
const FOLD_DAYS = `CREATE FUNCTION fold_redemption_day_counts() RETURNS int LANGUAGE plpgsql AS $$
  DECLARE
    past date := (SELECT (now() AT TIME ZONE time_zone)::date - 1 FROM stats_settings);
    folded int;
  BEGIN
    -- Locked in key order first, as every writer takes day rows: no deadlock with a concurrent retention batch.
    PERFORM 1 FROM redemption_day_counts WHERE shard <> 0 AND day < past ORDER BY day, product_id, shard FOR UPDATE;
    WITH gone AS (
      DELETE FROM redemption_day_counts c WHERE c.shard <> 0 AND c.day < past
      RETURNING c.day, c.product_id, c.redemptions),
    summed AS (
      INSERT INTO redemption_day_counts AS c (day, product_id, shard, redemptions)
      SELECT day, product_id, 0, sum(redemptions) FROM gone GROUP BY day, product_id ORDER BY day, product_id
      ON CONFLICT (day, product_id, shard) DO UPDATE SET redemptions = c.redemptions + EXCLUDED.redemptions)
    SELECT count(*) INTO folded FROM gone;
    DELETE FROM redemption_day_counts WHERE day < past AND redemptions = 0;
    RETURN folded;
  END $$`;

/**
 * The statement trigger functions; `guard` is plpgsql run first (migration 1763820000200 adds one that returns at
 * once for the redemption statement, which keeps its own counters); `keyRoom` counts the pool's free activations
 * too (migration 1763820000300).
 */
export function counterFunctions(guard = '', keyRoom = false): string[] {
  const keyFigures = ['total', 'active', 'available', 'partially_used', 'fully_used', ...(keyRoom ? ['room'] : [])];
  return [
    deltaFunction(
      'count_voucher_codes',
      'product_counts',
      ['available', 'redeemed', 'void'],
      CODE_STATE,
      undefined,
      guard,
    ),
    REDEMPTION_COUNTER(guard),
    deltaFunction(
      'count_license_keys',
      'license_key_counts',
      keyFigures,
      keyRoom ? `${KEY_STATE}, ${KEY_ROOM}` : KEY_STATE,
      'NOT x.is_manual',
      guard,
    ),
  ];
}

export class Counters1763820000000 implements MigrationInterface {
  name = 'Counters1763820000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`CREATE TABLE stats_settings (
      id smallint NOT NULL DEFAULT 1, time_zone text NOT NULL DEFAULT 'UTC',
      CONSTRAINT pk_stats_settings PRIMARY KEY (id), CONSTRAINT chk_stats_settings_one_row CHECK (id = 1))`);
    await q.query(`INSERT INTO stats_settings (id) VALUES (1)`);
    await q.query(`CREATE TABLE product_counts (
      product_id uuid NOT NULL, shard smallint NOT NULL,
      available bigint NOT NULL DEFAULT 0, redeemed bigint NOT NULL DEFAULT 0, void bigint NOT NULL DEFAULT 0,
      redemptions bigint NOT NULL DEFAULT 0,
      CONSTRAINT pk_product_counts PRIMARY KEY (product_id, shard))`);
    await q.query(`CREATE TABLE redemption_day_counts (
      day date NOT NULL, product_id uuid NOT NULL, shard smallint NOT NULL, redemptions bigint NOT NULL DEFAULT 0,
      CONSTRAINT pk_redemption_day_counts PRIMARY KEY (day, product_id, shard))`);
    await q.query(`CREATE TABLE license_key_counts (
      product_id uuid NOT NULL, shard smallint NOT NULL,
      total bigint NOT NULL DEFAULT 0, active bigint NOT NULL DEFAULT 0, available bigint NOT NULL DEFAULT 0,
      partially_used bigint NOT NULL DEFAULT 0, fully_used bigint NOT NULL DEFAULT 0,
      CONSTRAINT pk_license_key_counts PRIMARY KEY (product_id, shard))`);

    // Tables locked first: no row may be written between the backfill and the triggers taking over.
    await q.query(`LOCK TABLE voucher_codes, redemptions, license_keys IN SHARE ROW EXCLUSIVE MODE`);
    for (const sql of counterFunctions()) await q.query(sql);
    await q.query(REDEMPTION_MOVED);
    await q.query(FOLD_DAYS);
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

    // Backfill, shard 0.
    await q.query(`INSERT INTO product_counts (product_id, shard, available, redeemed, void)
      SELECT x.product_id, 0, sum(available), sum(redeemed), sum(void)
        FROM (SELECT x.product_id, ${CODE_STATE} FROM voucher_codes x) x GROUP BY x.product_id`);
    await q.query(`INSERT INTO product_counts AS c (product_id, shard, redemptions)
      SELECT product_id, 0, count(*) FROM redemptions GROUP BY product_id
      ON CONFLICT (product_id, shard) DO UPDATE SET redemptions = EXCLUDED.redemptions`);
    await q.query(`INSERT INTO redemption_day_counts (day, product_id, shard, redemptions)
      SELECT ${LOCAL_DAY}, x.product_id, 0, count(*) FROM redemptions x, stats_settings z GROUP BY 1, 2`);
    await q.query(`INSERT INTO license_key_counts (product_id, shard, total, active, available, partially_used, fully_used)
      SELECT x.product_id, 0, sum(total), sum(active), sum(available), sum(partially_used), sum(fully_used)
        FROM (SELECT x.product_id, ${KEY_STATE} FROM license_keys x WHERE NOT x.is_manual) x GROUP BY x.product_id`);
  }

  public async down(q: QueryRunner): Promise<void> {
    for (const [table, events] of [
      ['voucher_codes', ['insert', 'update', 'delete', 'truncate']],
      ['redemptions', ['insert', 'delete', 'truncate', 'moved']],
      ['license_keys', ['insert', 'update', 'delete', 'truncate']],
    ] as const) {
      for (const e of events) await q.query(`DROP TRIGGER trg_${table}_count_${e} ON ${table}`);
    }
    await q.query(`DROP FUNCTION fold_redemption_day_counts(), count_license_keys(), count_redemption_moved(),
      count_redemptions(), count_voucher_codes()`);
    await q.query(`DROP TABLE license_key_counts, redemption_day_counts, product_counts, stats_settings`);
  }
}
