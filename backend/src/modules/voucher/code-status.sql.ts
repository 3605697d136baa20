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
 * SQL predicates on `v` per status: available matches idx_voucher_codes_unredeemed_seq's WHERE, void
 * idx_voucher_codes_void_seq's; a product's redeemed codes in order are `REDEEMED_CODES_SQL` (no index on the code's
 * row holds them: migration 1763844000000).
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
 * state").
 */
export const REDEEMED_CODES_SQL = `(SELECT r.voucher_code_id AS id, r.product_id, r.redeemed_at FROM redemptions r
   UNION ALL
   SELECT o.voucher_code_id, o.product_id, o.redeemed_at FROM released_codes o)`;

/**
 * The CTE by which a statement that deletes redemptions keeps their codes redeemed and listed (`rows`: its
 * RETURNING with `voucher_code_id`, `product_id`, `redeemed_at`): each code goes into `released_codes`.
 */
export const releasedCodesCte = (rows: string) => `, released AS (
  INSERT INTO released_codes (voucher_code_id, product_id, redeemed_at)
  SELECT voucher_code_id, product_id, redeemed_at FROM ${rows})`;
