import { likeContains, likePrefix } from '../../common/utils/sql';

/**
 * How a search term finds redemptions (docs/product.md §11.12), in three ways, the first that finds any in the list:
 * - `name`: the term is a full name given with a redemption (case-insensitive) → those redemptions, newest first,
 *   read from idx_redemptions_name_list ((lower(first || ' ' || last)) text_pattern_ops, exported, redeemed_at DESC,
 *   id) in order: a name shared by 20,000 customers reads one page;
 * - `words`: the term starts a word → e-mails starting with it (uq_customers_email), e-mail domains starting
 *   with it (idx_customers_email_domain), full names starting with it (idx_redemptions_name_list), and codes starting
 *   with it (uq_voucher_codes_code, a `text_pattern_ops` b-tree: a code is one word; the whole code is its own start);
 * - `inside`: the term starts inside a word (nothing above found it) → codes, e-mails and names containing it, through
 *   the trigram indexes.
 */
export type SearchPath = 'name' | 'words' | 'inside';

/** The lower-cased full name, the expression of idx_redemptions_name_list. */
export const nameKey = (r: string) => `lower(${r}.first_name || ' ' || ${r}.last_name)`;

/** A LIKE pattern matching the codes that start with `term` (codes are stored upper-cased). */
const codePrefix = (term: string) => likePrefix(term.toUpperCase());

/** The parameters of each path, numbered after the list's own (`pathPlaceholders`). */
export function searchParams(path: SearchPath, term: string): unknown[] {
  const lower = term.toLowerCase();
  if (path === 'name') return [lower];
  if (path === 'words') return [likePrefix(lower), codePrefix(term)];
  return [likeContains(term)];
}

/** E-mails (stored lower-cased) or their domain starting with the pattern `p`; `c` is a customers row. */
const emailStarts = (c: string, p: string) => `(${c}.email LIKE ${p} OR split_part(${c}.email, '@', 2) LIKE ${p})`;

/**
 * Placeholders of the four parameters: the lower-cased term, its prefix pattern, its substring pattern, the prefix
 * pattern of a code (upper-cased).
 */
interface Placeholders {
  t: string;
  w: string;
  c: string;
  k: string;
}

/**
 * The path answering the term in the list filtered by `base` (on `r`): index probes (EXISTS, one row each), each a
 * b-tree range read from its start, so a term that nothing starts with costs a probe per index (a code containing
 * the term used to be asked of the trigram index here: tens of milliseconds at ten million codes, docs/benchmarks.md
 * "A code's start").
 */
function pathSql(base: string, { t, w, k }: Placeholders): string {
  return `CASE
       WHEN EXISTS (SELECT 1 FROM redemptions r WHERE ${base} AND ${nameKey('r')} = ${t}) THEN 'name'
       WHEN EXISTS (SELECT 1 FROM redemptions r WHERE ${base} AND ${nameKey('r')} LIKE ${w})
         OR EXISTS (SELECT 1 FROM customers c JOIN redemptions r ON r.customer_id = c.id
                     WHERE ${emailStarts('c', w)} AND ${base})
         OR EXISTS (SELECT 1 FROM voucher_codes v JOIN redemptions r ON r.voucher_code_id = v.id
                     WHERE v.code LIKE ${k} AND ${base}) THEN 'words'
       ELSE 'inside' END`;
}

const allParams = (term: string) => [
  term.toLowerCase(),
  likePrefix(term.toLowerCase()),
  likeContains(term),
  codePrefix(term),
];
const numbered = (n: number): Placeholders => ({ t: `$${n + 1}`, w: `$${n + 2}`, c: `$${n + 3}`, k: `$${n + 4}` });

/**
 * The statement that tells which path answers `term` in the list filtered by `base` (on `r`, with `params`), and its
 * parameters: run by the list's repository.
 */
export function searchPathQuery(base: string, params: unknown[], term: string): { sql: string; params: unknown[] } {
  const n = params.length;
  // Every parameter but the substring pattern, which only the `inside` forms use.
  const ph = { t: `$${n + 1}`, w: `$${n + 2}`, c: '', k: `$${n + 3}` };
  const [t, w, , k] = allParams(term);
  return { sql: `SELECT ${pathSql(base, ph)} AS path`, params: [...params, t, w, k] };
}

/**
 * The search as one test on a joined row (`r`, `v`, `c`), the path chosen inside the statement, for the export of
 * the list as filtered on screen: the three parameters follow the list's `n`.
 */
export function chosenSearchTest(base: string, n: number, term: string): { test: string; params: unknown[] } {
  const ph = numbered(n);
  const test = `CASE (${pathSql(base, ph)})
      WHEN 'name' THEN ${searchForms('name', base, ph).joined}
      WHEN 'words' THEN ${searchForms('words', base, ph).joined}
      ELSE ${searchForms('inside', base, ph).joined} END`;
  return { test, params: allParams(term) };
}

/** The placeholders of a path's own parameters (`searchParams`), numbered from `first`. */
export function pathPlaceholders(path: SearchPath, first: number): Placeholders {
  const [a, b] = [`$${first}`, `$${first + 1}`];
  if (path === 'name') return { t: a, w: '', c: '', k: '' };
  if (path === 'words') return { t: '', w: a, c: '', k: b };
  return { t: '', w: '', c: a, k: '' };
}

/**
 * The three forms of a path's test (the list module's `indexed`, `joined`, `matches`; docs/architecture.md "Lists"),
 * `base` filtering `r`, the parameters at `ph`.
 */
export function searchForms(path: SearchPath, base: string, ph: Placeholders) {
  if (path === 'name') {
    const test = `${nameKey('r')} = ${ph.t}`;
    return { indexed: test, joined: test, ordered: true };
  }
  if (path === 'words') {
    const [p, k] = [ph.w, ph.k];
    const names = (r: string) => `${nameKey(r)} LIKE ${p}`;
    const notEmail = (cu: string) => `${emailStarts(cu, p)} IS NOT TRUE`;
    return {
      // Code, then e-mail, then name: each later branch leaves out the rows of an earlier one.
      matches: `SELECT r.id, r.redeemed_at FROM voucher_codes v2 JOIN redemptions r ON r.voucher_code_id = v2.id
                  JOIN customers c2 ON c2.id = r.customer_id
                 WHERE v2.code LIKE ${k} AND ${base} AND ${notEmail('c2')} AND NOT ${names('r')}
                UNION ALL
                SELECT r.id, r.redeemed_at FROM customers c3 JOIN redemptions r ON r.customer_id = c3.id
                 WHERE ${emailStarts('c3', p)} AND ${base}
                UNION ALL
                SELECT r.id, r.redeemed_at FROM redemptions r JOIN customers c4 ON c4.id = r.customer_id
                 WHERE ${names('r')} AND ${base} AND ${notEmail('c4')}`,
      indexed: `r.id IN (
        SELECT r2.id FROM voucher_codes v2 JOIN redemptions r2 ON r2.voucher_code_id = v2.id WHERE v2.code LIKE ${k}
        UNION
        SELECT r3.id FROM customers c3 JOIN redemptions r3 ON r3.customer_id = c3.id WHERE ${emailStarts('c3', p)}
        UNION
        SELECT r4.id FROM redemptions r4 WHERE ${names('r4')})`,
      joined: `(v.code LIKE ${k} OR ${emailStarts('c', p)} OR ${names('r')})`,
    };
  }
  const p = ph.c;
  // The expression of idx_redemptions_full_name_trgm: "Ann Lee" finds Ann Lee.
  const nameMatches = (r: string) => `(${r}.first_name || ' ' || ${r}.last_name) ILIKE ${p}`;
  const emailMatches = (c: string) => `${c}.email ILIKE ${p}`;
  // An erased customer's e-mail is null (docs/product.md §21.3): "not an e-mail match" must be true for it.
  const notEmailMatch = (c: string) => `(${emailMatches(c)}) IS NOT TRUE`;
  return {
    // UNION ALL, so a LIMIT stops it early: each branch leaves out the rows an earlier one returns (code, then
    // e-mail, then name: the name branch leaves out e-mail matches, the code branch both).
    matches: `SELECT r.id, r.redeemed_at FROM voucher_codes v2 JOIN redemptions r ON r.voucher_code_id = v2.id
                JOIN customers c2 ON c2.id = r.customer_id
               WHERE v2.code ILIKE ${p} AND ${base} AND ${notEmailMatch('c2')} AND NOT ${nameMatches('r')}
              UNION ALL
              SELECT r.id, r.redeemed_at FROM customers c3 JOIN redemptions r ON r.customer_id = c3.id
               WHERE ${emailMatches('c3')} AND ${base}
              UNION ALL
              SELECT r.id, r.redeemed_at FROM redemptions r JOIN customers c4 ON c4.id = r.customer_id
               WHERE ${nameMatches('r')} AND ${base} AND ${notEmailMatch('c4')}`,
    indexed: `r.id IN (
      SELECT r2.id FROM voucher_codes v2 JOIN redemptions r2 ON r2.voucher_code_id = v2.id WHERE v2.code ILIKE ${p}
      UNION
      SELECT r3.id FROM customers c3 JOIN redemptions r3 ON r3.customer_id = c3.id WHERE ${emailMatches('c3')}
      UNION
      SELECT r4.id FROM redemptions r4 WHERE ${nameMatches('r4')})`,
    joined: `(v.code ILIKE ${p} OR ${emailMatches('c')} OR ${nameMatches('r')})`,
  };
}
