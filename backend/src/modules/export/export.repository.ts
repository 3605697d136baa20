import { Injectable } from '@nestjs/common';
import type { Readable } from 'stream';
import { to as copyTo } from 'pg-copy-streams';
import QueryStream from 'pg-query-stream';
import { DatabaseService } from '../../database/database.service';
import { latestLicenseKeySql } from '../license/license.repository';
import { redemptionListFilter, RedemptionListCriteria } from '../redemption/redemption-list.repository';
import { chosenSearchTest } from '../redemption/redemption-search.sql';
import { CODE_STATUS_FILE_WORDS, CODE_STATUS_SQL, codeStatusSql } from '../voucher/code-status.sql';
import { UploadBatchKind } from '../voucher/entities/upload-batch.entity';
import { batchCodesSql } from '../voucher/upload-batch.repository';

/**
 * Marks the matching redemptions exported and returns them with their customer details as given with each redemption
 * (its own name, phone and country; the e-mail from `customers`, one row per e-mail), product and latest
 * licence, sealed (`license_key`/`key_ciphertext`: `openExportRow` opens it in the stream, MANUAL_ prefix removed). `{where}` filters `r` (redemptions), `v` (codes) and `c` (customers).
 * PostgreSQL runs the data-modifying WITH to completion on the first fetch; rows then come in batches.
 *
 * It counts what it marks (docs/product.md §20.1, migration 1763823000000), in the same statement: `locked` takes the row
 * locks the UPDATE would take anyway (FOR NO KEY UPDATE, re-checking `{where}` on a row changed meanwhile, as the
 * UPDATE did) and reads whether each row was exported already, so of two exports of one row at the same moment only
 * the first counts it. It locks in id order, as every statement that locks several redemptions does (bulk delete,
 * refunds): two of them wait for each other, never deadlock; `counted` adds the newly exported ones to their product's and batch's counter, on a shard of
 * the exports' own (32 + pid % 32, past the 32 shards of the other writers): the export holds that row until its file is written,
 * and no other writer ever writes it.
 */
export const markAndSelect = (where: string) => `
WITH locked AS MATERIALIZED (
  SELECT r.id, r.exported AS was_exported
    FROM redemptions r, voucher_codes v, customers c
   WHERE v.id = r.voucher_code_id AND c.id = r.customer_id AND (${where})
   ORDER BY r.id
     FOR NO KEY UPDATE OF r
), marked AS (
  UPDATE redemptions r SET exported = true, exported_at = now()
    FROM locked l, voucher_codes v, customers c
   WHERE r.id = l.id AND v.id = r.voucher_code_id AND c.id = r.customer_id
  RETURNING r.id, v.code, r.first_name, r.last_name, c.email, r.phone, r.country,
            r.product_id, r.email_status, r.redeemed_at, r.exported_at, r.refunded_at,
            l.was_exported, coalesce(v.batch_id, r.product_id) AS batch_id
), counted AS (
  INSERT INTO product_counts AS pc (product_id, batch_id, shard, exported)
  SELECT m.product_id, m.batch_id, (32 + pg_backend_pid() % 32)::smallint, count(*)
    FROM marked m WHERE NOT m.was_exported
   GROUP BY m.product_id, m.batch_id ORDER BY m.product_id, m.batch_id
  ON CONFLICT (product_id, batch_id, shard) DO UPDATE SET exported = pc.exported + EXCLUDED.exported
)
SELECT m.code, m.first_name, m.last_name, m.email, m.phone, m.country, p.name AS product, m.email_status,
       lk.license_key, lk.key_ciphertext,
       coalesce(lk.download_link, p.download_link) AS download_link,
       m.redeemed_at, m.exported_at, m.refunded_at
  FROM marked m
  JOIN products p ON p.id = m.product_id
  LEFT JOIN LATERAL (${latestLicenseKeySql('m')}) lk ON true
 ORDER BY m.redeemed_at DESC, m.id DESC`;

/** Which redemptions an export marks and reads: picked by id, or the redemption list as filtered on screen. */
export type RedemptionExportSelection = { ids: string[] } | { list: RedemptionListCriteria };

/**
 * `markAndSelect`'s filter and parameters for a selection (the list's own filter, its joined form; a search's path,
 * docs/product.md §11.12, chosen inside the statement as the list chooses it).
 */
function redemptionExportFilter(selection: RedemptionExportSelection): { where: string; params: unknown[] } {
  if ('ids' in selection) return { where: 'r.id = ANY($1::uuid[])', params: [selection.ids] };
  const criteria = selection.list;
  const { params, base } = redemptionListFilter({ ...criteria, search: undefined });
  if (!criteria.search) return { where: base, params };
  const { test, params: searchParameters } = chosenSearchTest(base, params.length, criteria.search);
  return { where: `${base} AND ${test}`, params: [...params, ...searchParameters] };
}

/**
 * SQL twin of `neutraliseCell` for text: a cell starting with = + - @ tab or CR, or with the full-width
 * ＝ ＋ － ＠ (U+FF1D, U+FF0B, U+FF0D, U+FF20), gets a leading `'`.
 */
function neutralisedSql(expr: string): string {
  return `CASE WHEN ${expr} ~ '^[-=+@\\t\\r\\uFF1D\\uFF0B\\uFF0D\\uFF20]' THEN '''' || ${expr} ELSE ${expr} END`;
}

/** SQL twin of `Date.toISOString()`: UTC, milliseconds, `Z`. */
function isoSql(expr: string): string {
  return `to_char(${expr} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

/**
 * Code-only exports (voucher_codes, the voucher module's table, read-only, with the redemption's refund for
 * redeemed codes): `csv` and `txt` for `COPY … TO STDOUT`, with cells already neutralised and timestamps already
 * ISO 8601. `$1` is a product id or NULL. Each file carries its codes' status (docs/product.md §19.3, the voucher
 * module's `codeStatusSql`): redeemed codes are `Redeemed` or, refunded after redemption, `Refunded` with the
 * refund's time; the unredeemed export holds available codes only (void codes are not for sale), `Available`. With a
 * product, its codes are read from idx_voucher_codes_product_seq and those of the status kept (redeemed ones sorted
 * by PostgreSQL as the file streams): no index on the code's row holds its state (migrations 1763844000000 and
 * 1763845000000, so that a redemption's update of its code inserts into none of the code's indexes).
 */
const REDEEMED_CODES = `FROM voucher_codes v JOIN products p ON p.id = v.product_id
                 LEFT JOIN redemptions r ON r.voucher_code_id = v.id
                WHERE ${CODE_STATUS_SQL.redeemed} AND ($1::uuid IS NULL OR v.product_id = $1)
                ORDER BY v.redeemed_at DESC, v.seq DESC`;
const AVAILABLE_CODES = `FROM voucher_codes v JOIN products p ON p.id = v.product_id
                WHERE ${CODE_STATUS_SQL.available} AND ($1::uuid IS NULL OR v.product_id = $1)
                ORDER BY p.name, v.seq DESC`;

const CODE_EXPORT_SQL = {
  redeemed: {
    csv: `SELECT ${neutralisedSql('v.code')}, ${neutralisedSql('p.name')}, ${isoSql('v.redeemed_at')},
                  ${codeStatusSql('file')}, ${isoSql('r.refunded_at')} ${REDEEMED_CODES}`,
    txt: `SELECT v.code ${REDEEMED_CODES}`,
  },
  unredeemed: {
    csv: `SELECT ${neutralisedSql('v.code')}, ${neutralisedSql('p.name')}, ${isoSql('v.created_at')}, '${CODE_STATUS_FILE_WORDS.available}' ${AVAILABLE_CODES}`,
    txt: `SELECT v.code ${AVAILABLE_CODES}`,
  },
} as const;

/**
 * A batch's reconciliation (docs/product.md §20.1): each code of the batch with its state and its redemption's times, in
 * insertion order; `$1` is the batch's id, the rows come from the voucher module's `batchCodesSql`.
 */
function batchExportSql(kind: UploadBatchKind): { csv: string; txt: string } {
  const from = batchCodesSql(kind);
  return {
    csv: `SELECT ${neutralisedSql('v.code')}, ${codeStatusSql('file')}, ${isoSql('v.redeemed_at')}, ${isoSql('r.exported_at')},
                 ${isoSql('r.refunded_at')} ${from}`,
    txt: `SELECT v.code ${from}`,
  };
}

/** A code-only export, by kind: a product's (or every product's, null) redeemed or available codes, or a batch's. */
export type CodeExport =
  | { kind: 'redeemed' | 'unredeemed'; productId: string | null }
  | { kind: 'batch'; batchId: string; batchKind: UploadBatchKind };

/** The statement of a code export in a format, and its one parameter (`$1`). */
function codeExportSql(codes: CodeExport, format: 'csv' | 'txt'): { sql: string; param: string | null } {
  if (codes.kind === 'batch') return { sql: batchExportSql(codes.batchKind)[format], param: codes.batchId };
  return { sql: CODE_EXPORT_SQL[codes.kind][format], param: codes.productId };
}

/** The export module's database access: a server-side cursor in a transaction, or COPY on one held connection. */
@Injectable()
export class ExportRepository {
  constructor(private readonly database: DatabaseService) {}

  /** Reads `products` (the product module's table): an export of a product that does not exist is a 404. */
  async productExists(id: string): Promise<boolean> {
    const [product] = await this.database.manager.query(`SELECT 1 FROM products WHERE id = $1`, [id]);
    return !!product;
  }

  /**
   * `fn` reads the selected redemptions, marked exported (`markAndSelect`), from a cursor (pg-query-stream, 500 rows
   * a fetch) inside one transaction, committed when `fn` resolves: the marks stand only once the whole file is
   * written. When `fn` throws, the connection is closed, which rolls everything back.
   */
  streamMarkedRedemptions<T>(
    selection: RedemptionExportSelection,
    fn: (rows: AsyncIterator<Record<string, unknown>>) => Promise<T>,
  ): Promise<T> {
    const { where, params } = redemptionExportFilter(selection);
    const sql = markAndSelect(where);
    return this.database.withClient(
      (client) => {
        const rows = client.query(new QueryStream(sql, params, { batchSize: 500, highWaterMark: 500 }));
        return fn(rows[Symbol.asyncIterator]() as AsyncIterator<Record<string, unknown>>);
      },
      { transaction: true, bulk: true },
    );
  }

  /**
   * A code export's rows in `format` through `COPY (…) TO STDOUT` in CSV, its parameter inlined as `$1` (COPY takes
   * no bind parameters). `fn` learns first whether there is any row (the statement without its ORDER BY, so the
   * check stops at the first row instead of sorting them all), then opens the stream.
   */
  copyCodes<T>(
    codes: CodeExport,
    format: 'csv' | 'txt',
    fn: (found: boolean, open: () => Readable) => Promise<T>,
  ): Promise<T> {
    const { sql, param } = codeExportSql(codes, format);
    return this.database.withClient(
      async (client) => {
        const inlined = sql.replace(/\$1\b/g, param === null ? 'NULL' : client.escapeLiteral(String(param)));
        const [{ found }] = (await client.query(`SELECT EXISTS (${inlined.replace(/ORDER BY[\s\S]*$/, '')}) AS found`))
          .rows;
        return fn(found, () => client.query(copyTo(`COPY (${inlined}) TO STDOUT WITH (FORMAT csv)`)));
      },
      // Its sort of a million codes may use PostgreSQL's parallel workers (the API's statements do not).
      { bulk: true, parallel: true },
    );
  }
}
