/**
 * The one vocabulary of a voucher code's status (docs/product.md §19.3), written once as SQL over `v` (voucher_codes)
 * for every statement that states it: the code list and a code's status (voucher-code.repository.ts), the code
 * exports and a batch's reconciliation (export.repository.ts, over upload-batch.repository.ts's `batchCodesSql`).
 * A code is available, redeemed or void (`chk_voucher_codes_void_unredeemed`: never both redeemed and void); a
 * redeemed code whose redemption was refunded afterwards is refunded where the statement joins that redemption.
 */
export type CodeStatus = 'available' | 'redeemed' | 'void';

/** A code's status in an export file: the API's words capitalised, plus Refunded (redeemed, then refunded). */
export const CODE_STATUS_FILE_WORDS = {
  available: 'Available',
  redeemed: 'Redeemed',
  refunded: 'Refunded',
  void: 'Void',
} as const;

/**
 * SQL predicates on `v` per status: void matches idx_voucher_codes_void_seq's WHERE; a product's available and
 * redeemed codes in order are `availableCodesSql` and `redeemedCodesSql` (no index on the code's row holds them:
 * migrations 1763844000000, 1763845000000).
 */
export const CODE_STATUS_SQL: Record<CodeStatus, string> = {
  available: 'NOT v.is_redeemed AND v.voided_at IS NULL',
  redeemed: 'v.is_redeemed',
  void: 'v.voided_at IS NOT NULL',
};

/**
 * A code's status as a SQL text expression over `v`: the API's words (`available`, `redeemed`, `void`), or an export
 * file's (`Available`, `Redeemed`, `Void`, and `Refunded` for a redeemed code whose redemption, joined as
 * `redemption`, has `refunded_at`).
 */
export function codeStatusSql(words: 'api' | 'file', redemption = 'r'): string {
  if (words === 'api') {
    return `CASE WHEN ${CODE_STATUS_SQL.void} THEN 'void' WHEN ${CODE_STATUS_SQL.redeemed} THEN 'redeemed' ELSE 'available' END`;
  }
  const w = CODE_STATUS_FILE_WORDS;
  return `CASE WHEN ${CODE_STATUS_SQL.void} THEN '${w.void}'
  WHEN ${CODE_STATUS_SQL.redeemed} AND ${redemption}.refunded_at IS NOT NULL THEN '${w.refunded}'
  WHEN ${CODE_STATUS_SQL.redeemed} THEN '${w.redeemed}' ELSE '${w.available}' END`;
}

/**
 * The redeemed codes as a row source (`id` the code's, `product_id`, `redeemed_at`), read without the code's row:
 * those with their redemption (idx_redemptions_product_redeemed) and those whose redemption was deleted
 * (`released_codes`, idx_released_codes_product), disjoint. Per product, newest first, PostgreSQL merges the two
 * indexes read backwards (a Merge Append): the page's ids come from the indexes alone (docs/architecture.md "A code's
 * state"). `withCode`: joined to each code (`code`), for a search.
 */
export function redeemedCodesSql(withCode: boolean): string {
  const ids = `(SELECT r.voucher_code_id AS id, r.product_id, r.redeemed_at FROM redemptions r
   UNION ALL
   SELECT o.voucher_code_id, o.product_id, o.redeemed_at FROM released_codes o)`;
  return withCode
    ? `(SELECT c.id, c.code, x.product_id, x.redeemed_at FROM ${ids} x JOIN voucher_codes c ON c.id = x.id)`
    : ids;
}

/**
 * The CTE by which a statement that deletes redemptions keeps their codes redeemed and listed (`rows`: its
 * RETURNING with `voucher_code_id`, `product_id`, `redeemed_at`): each code goes into `released_codes`.
 */
export const releasedCodesCte = (rows: string) => `, released AS (
  INSERT INTO released_codes (voucher_code_id, product_id, redeemed_at)
  SELECT voucher_code_id, product_id, redeemed_at FROM ${rows})`;

/**
 * The available codes as a row source (`id` the code's, `product_id`, `seq`), from `available_codes` alone: per
 * product, newest first, its primary key read backwards answers a page's ids (index-only). `withCode`: joined to each
 * code (`code`), for a search (the trigram index finds codes, the primary key tells which are available).
 */
export const availableCodesSql = (withCode: boolean) =>
  withCode
    ? `(SELECT c.id, c.code, a.product_id, a.seq FROM available_codes a
          JOIN voucher_codes c ON c.product_id = a.product_id AND c.seq = a.seq)`
    : `(SELECT a.voucher_code_id AS id, a.product_id, a.seq FROM available_codes a)`;

/**
 * The CTE by which a statement that makes codes available lists them (`rows`: its RETURNING with `id`, `product_id`,
 * `seq`): the upload, in the same statement as its INSERT.
 */
export const listAvailableCte = (rows: string) => `, listed AS (
  INSERT INTO available_codes (product_id, seq, voucher_code_id) SELECT x.product_id, x.seq, x.id FROM ${rows} x)`;

/**
 * The CTE by which a statement that ends codes' availability takes them off the list (`rows`: its RETURNING with
 * `product_id`, `seq`): the redemption, a void, a code's delete. It locks the list row after the code's (each of those
 * statements changed the code's row first), the order every such statement takes them in.
 */
export const unlistAvailableCte = (rows: string) => `, unlisted AS (
  DELETE FROM available_codes a USING ${rows} x WHERE a.product_id = x.product_id AND a.seq = x.seq)`;
