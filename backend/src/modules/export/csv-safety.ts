/**
 * Characters that make a spreadsheet treat a cell as a formula (OWASP "CSV injection"), with their
 * full-width forms (＝ ＋ － ＠), which some spreadsheets (East Asian locales) read as the ASCII ones.
 * `neutralisedSql` in export.repository.ts is the SQL twin used by the COPY exports.
 */
const FORMULA_START = /^[=+\-@\t\r\uFF1D\uFF0B\uFF0D\uFF20]/;

/** Prefixes a formula-looking text cell with `'` so spreadsheets show it as text (docs/product.md §16.1). */
export function neutraliseCell(value: unknown): string {
  if (value === null || value === undefined) return '';
  const text = value instanceof Date ? value.toISOString() : String(value);
  return FORMULA_START.test(text) ? `'${text}` : text;
}
