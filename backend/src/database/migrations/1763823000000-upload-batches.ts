import { MigrationInterface, QueryRunner } from 'typeorm';
import { COUNTER_SHARDS } from './1763820000000-counters';
import { SKIP_COUNTED_STATEMENT } from './1763820000200-redemption-counts-itself';

/**
 * Upload batches (issue 11, docs/product.md §20.1): every upload of codes and every void file is an `upload_batches` row, and
 * the counters of migration 1763820000000 are kept per batch as well as per product.
 *
 * - `voucher_codes.batch_id`: the upload that brought the code. NULL means the product's "before batches" batch,
 *   whose id IS the product's id (`chk_upload_batches_before_batches_id`): codes from before batches existed need no
 *   rewrite of millions of rows, and a code added by any other path (SQL, a script, an older instance during a rolling
 *   deploy) still belongs to a batch. `coalesce(batch_id, product_id)` is a code's batch everywhere. No foreign key:
 *   its check would be one more lookup per uploaded code; batches go only with their product, whose codes go too.
 * - `voucher_codes.void_batch_id`: the void file that voided the code (or marked its redemption refunded), for that
 *   file's reconciliation; indexed only where set, so uploads and redemptions never touch the index.
 * - `upload_batches.first_seq/last_seq`: the upload's range of `voucher_codes.seq`, so a batch's codes are read in
 *   order from idx_voucher_codes_product_seq without an index of their own (another upload running at the same time
 *   may interleave; the batch_id filter drops its codes).
 * - `product_counts` is keyed `(product_id, batch_id, shard)` and counts `exported` redemptions too: the redemption's
 *   one `pc` upsert, the triggers and the export statement keep both the product's and the batch's figures with the
 *   writes they already do; a product's figures are the sum over its batches. Exports count themselves (the marking
 *   statement, `markAndSelect`) on shards COUNTER_SHARDS…2·COUNTER_SHARDS−1, which no other writer uses: an export
 *   holds its counter row until its file is written, and no redemption may wait for that.
 * - A product gets its "before batches" row when it is created (trigger on products); existing products here.
 */
const SHARD = `(pg_backend_pid() % ${COUNTER_SHARDS})::smallint`;

/** Code state as 0/1 columns of a voucher_codes row `x` (CODE_STATUS_SQL's predicates). */
const CODE_STATE = `(NOT x.is_redeemed AND x.voided_at IS NULL)::int AS available, x.is_redeemed::int AS redeemed,
                    (x.voided_at IS NOT NULL)::int AS void`;

/**
 * The voucher_codes statement trigger function: the signed rows' sums per product and, `batched`, per batch (in key
 * order, skipping groups whose figures did not change). Unbatched, it is migration 1763820000000's (for `down`).
 */
export function codeCounter(batched: boolean): string {
  const key = batched ? ['product_id', 'batch_id'] : ['product_id'];
  const rows = (table: string, sign: number) =>
    `SELECT x.product_id, ${batched ? 'coalesce(x.batch_id, x.product_id) AS batch_id, ' : ''}${sign} AS sign, ${CODE_STATE}
       FROM ${table} x`;
  const upsert = (source: string) => `
    INSERT INTO product_counts AS c (${key.join(', ')}, shard, available, redeemed, void)
    SELECT ${key.map((k) => `d.${k}`).join(', ')}, ${SHARD}, sum(d.sign * d.available), sum(d.sign * d.redeemed), sum(d.sign * d.void)
      FROM (${source}) d
     GROUP BY ${key.map((k) => `d.${k}`).join(', ')}
    HAVING sum(d.sign * d.available) <> 0 OR sum(d.sign * d.redeemed) <> 0 OR sum(d.sign * d.void) <> 0
     ORDER BY ${key.map((k) => `d.${k}`).join(', ')}
    ON CONFLICT (${key.join(', ')}, shard) DO UPDATE
       SET available = c.available + EXCLUDED.available, redeemed = c.redeemed + EXCLUDED.redeemed, void = c.void + EXCLUDED.void;`;
  return `CREATE OR REPLACE FUNCTION count_voucher_codes() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${SKIP_COUNTED_STATEMENT}
    IF TG_OP = 'INSERT' THEN ${upsert(rows('new_rows', 1))}
    ELSIF TG_OP = 'UPDATE' THEN ${upsert(`${rows('new_rows', 1)} UNION ALL ${rows('old_rows', -1)}`)}
    ELSIF TG_OP = 'DELETE' THEN ${upsert(rows('old_rows', -1))}
    ELSE
      UPDATE product_counts SET available = 0, redeemed = 0, void = 0;
    END IF;
    RETURN NULL;
  END $$`;
}

/**
 * Redemptions (and, `batched`, exported redemptions) per product and batch (the batch of the redemption's code, which
 * the code keeps when its redemption is deleted), and per local day, from the signed rows `source` (product_id,
 * batch_id, sign, day, exported). product_counts rows before redemption_day_counts rows, each in key order.
 */
function redemptionDeltas(source: string, batched: boolean): string {
  const key = batched ? 'd.product_id, d.batch_id' : 'd.product_id';
  return `
    INSERT INTO product_counts AS c (product_id, ${batched ? 'batch_id, ' : ''}shard, redemptions${batched ? ', exported' : ''})
    SELECT ${key}, ${SHARD}, sum(d.sign)${batched ? ', sum(d.sign * d.exported)' : ''} FROM (${source}) d
     GROUP BY ${key} HAVING sum(d.sign) <> 0${batched ? ' OR sum(d.sign * d.exported) <> 0' : ''} ORDER BY ${key}
    ON CONFLICT (product_id, ${batched ? 'batch_id, ' : ''}shard) DO UPDATE
       SET redemptions = c.redemptions + EXCLUDED.redemptions${batched ? ', exported = c.exported + EXCLUDED.exported' : ''};
    INSERT INTO redemption_day_counts AS c (day, product_id, shard, redemptions)
    SELECT d.day, d.product_id, ${SHARD}, sum(d.sign) FROM (${source}) d
     GROUP BY d.day, d.product_id HAVING sum(d.sign) <> 0 ORDER BY d.day, d.product_id
    ON CONFLICT (day, product_id, shard) DO UPDATE SET redemptions = c.redemptions + EXCLUDED.redemptions;`;
}

/**
 * Signed redemption rows of a transition table with the batch of each one's code (a left join: a product's delete may
 * have taken the codes first) and whether it was exported.
 */
const redemptionRows = (table: string, sign: number, batched: boolean) =>
  batched
    ? `
      SELECT x.product_id, coalesce(v.batch_id, x.product_id) AS batch_id, ${sign} AS sign,
             (x.redeemed_at AT TIME ZONE z.time_zone)::date AS day, x.exported::int AS exported
        FROM ${table} x CROSS JOIN stats_settings z LEFT JOIN voucher_codes v ON v.id = x.voucher_code_id`
    : `SELECT x.product_id, ${sign} AS sign, (x.redeemed_at AT TIME ZONE z.time_zone)::date AS day FROM ${table} x, stats_settings z`;

export function redemptionCounter(batched: boolean): string {
  return `CREATE OR REPLACE FUNCTION count_redemptions() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${SKIP_COUNTED_STATEMENT}
    IF TG_OP = 'INSERT' THEN ${redemptionDeltas(redemptionRows('new_rows', 1, batched), batched)}
    ELSIF TG_OP = 'DELETE' THEN ${redemptionDeltas(redemptionRows('old_rows', -1, batched), batched)}
    ELSE
      DELETE FROM redemption_day_counts;
      UPDATE product_counts SET redemptions = 0${batched ? ', exported = 0' : ''};
    END IF;
    RETURN NULL;
  END $$`;
}

/** The row trigger for a redemption moved to another day or product (migration 1763820000000), per batch. */
export function redemptionMoved(batched: boolean): string {
  const row = (r: 'OLD' | 'NEW', sign: number) => `
      SELECT ${r}.product_id,${
        batched
          ? ` coalesce((SELECT v.batch_id FROM voucher_codes v WHERE v.id = ${r}.voucher_code_id), ${r}.product_id) AS batch_id,
             ${r}.exported::int AS exported,`
          : ''
      } ${sign} AS sign, (${r}.redeemed_at AT TIME ZONE z.time_zone)::date AS day
        FROM stats_settings z`;
  return `CREATE OR REPLACE FUNCTION count_redemption_moved() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN ${redemptionDeltas(`${row('OLD', -1)} UNION ALL ${row('NEW', 1)}`, batched)}
    RETURN NULL;
  END $$`;
}

/** Every product has its "before batches" batch, whose id is the product's (see above). */
const BEFORE_BATCHES_ROW = `CREATE FUNCTION add_before_batches_batch() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    INSERT INTO upload_batches (id, product_id, kind, created_at) VALUES (NEW.id, NEW.id, 'before-batches', NEW.created_at)
    ON CONFLICT (id) DO NOTHING;
    RETURN NULL;
  END $$`;

export class UploadBatches1763823000000 implements MigrationInterface {
  name = 'UploadBatches1763823000000';

  public async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE upload_batches (
        id uuid NOT NULL DEFAULT gen_random_uuid(),
        product_id uuid NOT NULL,
        kind varchar(20) NOT NULL,
        file_name varchar(255),
        admin_user_id uuid,
        inserted int NOT NULL DEFAULT 0,
        duplicates int NOT NULL DEFAULT 0,
        invalid int NOT NULL DEFAULT 0,
        refunded int NOT NULL DEFAULT 0,
        unknown int NOT NULL DEFAULT 0,
        first_seq bigint,
        last_seq bigint,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT pk_upload_batches PRIMARY KEY (id),
        CONSTRAINT chk_upload_batches_kind CHECK (kind IN ('upload', 'void', 'before-batches')),
        CONSTRAINT chk_upload_batches_before_batches_id CHECK (kind <> 'before-batches' OR id = product_id),
        CONSTRAINT upload_batches_product_id_fkey FOREIGN KEY (product_id) REFERENCES products(id) ON DELETE CASCADE,
        CONSTRAINT upload_batches_admin_user_id_fkey FOREIGN KEY (admin_user_id) REFERENCES admin_users(id) ON DELETE SET NULL
      )`);
    await q.query(`CREATE INDEX idx_upload_batches_product ON upload_batches (product_id, created_at, id)`);
    await q.query(`CREATE INDEX idx_upload_batches_admin_user ON upload_batches (admin_user_id)`);

    // No row may be written between the backfill and the new trigger functions taking over.
    await q.query(`LOCK TABLE products, voucher_codes, redemptions IN SHARE ROW EXCLUSIVE MODE`);
    // Both nullable without a default: no rewrite of the table.
    await q.query(`ALTER TABLE voucher_codes ADD COLUMN batch_id uuid, ADD COLUMN void_batch_id uuid`);
    await q.query(
      `CREATE INDEX idx_voucher_codes_void_batch ON voucher_codes (void_batch_id, seq) WHERE void_batch_id IS NOT NULL`,
    );

    // The existing counter rows are the "before batches" batches' (every existing code has no batch).
    await q.query(`ALTER TABLE product_counts ADD COLUMN batch_id uuid, ADD COLUMN exported bigint NOT NULL DEFAULT 0`);
    await q.query(`UPDATE product_counts SET batch_id = product_id`);
    await q.query(`ALTER TABLE product_counts ALTER COLUMN batch_id SET NOT NULL, DROP CONSTRAINT pk_product_counts,
      ADD CONSTRAINT pk_product_counts PRIMARY KEY (product_id, batch_id, shard)`);
    await q.query(`INSERT INTO product_counts AS c (product_id, batch_id, shard, exported)
      SELECT r.product_id, coalesce(v.batch_id, r.product_id), 0, count(*)
        FROM redemptions r LEFT JOIN voucher_codes v ON v.id = r.voucher_code_id
       WHERE r.exported GROUP BY 1, 2
      ON CONFLICT (product_id, batch_id, shard) DO UPDATE SET exported = EXCLUDED.exported`);

    for (const sql of [codeCounter(true), redemptionCounter(true), redemptionMoved(true)]) await q.query(sql);

    await q.query(BEFORE_BATCHES_ROW);
    await q.query(`CREATE TRIGGER trg_products_before_batches AFTER INSERT ON products
      FOR EACH ROW EXECUTE FUNCTION add_before_batches_batch()`);
    await q.query(`INSERT INTO upload_batches (id, product_id, kind, inserted, created_at)
      SELECT p.id, p.id, 'before-batches', (SELECT count(*) FROM voucher_codes v WHERE v.product_id = p.id), p.created_at
        FROM products p`);
  }

  public async down(q: QueryRunner): Promise<void> {
    await q.query(`LOCK TABLE products, voucher_codes, redemptions IN SHARE ROW EXCLUSIVE MODE`);
    await q.query(`DROP TRIGGER trg_products_before_batches ON products`);
    await q.query(`DROP FUNCTION add_before_batches_batch()`);
    for (const sql of [codeCounter(false), redemptionCounter(false), redemptionMoved(false)]) await q.query(sql);
    // One row per product and shard again (the exports' shards carried only `exported`).
    await q.query(`CREATE TEMP TABLE product_counts_unbatched AS
      SELECT product_id, shard, sum(available) AS available, sum(redeemed) AS redeemed, sum(void) AS void,
             sum(redemptions) AS redemptions
        FROM product_counts WHERE shard < ${COUNTER_SHARDS} GROUP BY product_id, shard`);
    await q.query(`DELETE FROM product_counts`);
    await q.query(`ALTER TABLE product_counts DROP CONSTRAINT pk_product_counts, DROP COLUMN batch_id, DROP COLUMN exported,
      ADD CONSTRAINT pk_product_counts PRIMARY KEY (product_id, shard)`);
    await q.query(`INSERT INTO product_counts (product_id, shard, available, redeemed, void, redemptions)
      SELECT product_id, shard, available, redeemed, void, redemptions FROM product_counts_unbatched`);
    await q.query(`DROP TABLE product_counts_unbatched`);
    await q.query(`DROP INDEX idx_voucher_codes_void_batch`);
    await q.query(`ALTER TABLE voucher_codes DROP COLUMN batch_id, DROP COLUMN void_batch_id`);
    await q.query(`DROP TABLE upload_batches`);
  }
}
