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
 * SQL predicates on `v` per status, each matching a partial index's WHERE: available
 * idx_voucher_codes_unredeemed_seq, redeemed idx_voucher_codes_redeemed, void idx_voucher_codes_void_seq.
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
