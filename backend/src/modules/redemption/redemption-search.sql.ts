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

/**
 * What the `words` path finds the term at the start of: codes, e-mails (or their domain), names. The list's path
 * statement tells which of them the list holds; its forms test only those, so a walked row looks up only what they
 * read (a term that starts e-mails only needs no code looked up: half the probes of a broad e-mail search).
 */
export type WordBranch = 'code' | 'email' | 'name';
export const WORD_BRANCHES: readonly WordBranch[] = ['code', 'email', 'name'];

/** The lower-cased full name, the expression of idx_redemptions_name_list. */
export const nameKey = (r: string) => `lower(${r}.first_name || ' ' || ${r}.last_name)`;

/** A LIKE pattern matching the codes that start with `term` (codes are stored upper-cased). */
const codePrefix = (term: string) => likePrefix(term.toUpperCase());

/** The parameters of each path, numbered after the list's own (`pathPlaceholders`). */
export function searchParams(
  path: SearchPath,
  term: string,
  branches: readonly WordBranch[] = WORD_BRANCHES,
): unknown[] {
  const lower = term.toLowerCase();
  if (path === 'name') return [lower];
  if (path === 'words') {
    // Only the patterns the branches test: a parameter no statement reads has no type PostgreSQL could infer.
    return [
      ...(startsWords(branches) ? [likePrefix(lower)] : []),
      ...(branches.includes('code') ? [codePrefix(term)] : []),
    ];
  }
  return [likeContains(term)];
}

/** Whether the branches test e-mails or names (the lower-cased prefix pattern), not codes alone. */
const startsWords = (branches: readonly WordBranch[]) => branches.some((branch) => branch !== 'code');

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
function pathSql(base: string, ph: Placeholders): string {
  const starts = branchProbes(base, ph);
  return `CASE
       WHEN ${nameProbe(base, ph)} THEN 'name'
       WHEN ${starts.name} OR ${starts.email} OR ${starts.code} THEN 'words'
       ELSE 'inside' END`;
}

/** Whether a full name given with a redemption in the list is the term. */
const nameProbe = (base: string, { t }: Placeholders) =>
  `EXISTS (SELECT 1 FROM redemptions r WHERE ${base} AND ${nameKey('r')} = ${t})`;

/** Whether the list holds a redemption whose code, e-mail (or domain), or name starts with the term. */
function branchProbes(base: string, { w, k }: Placeholders): Record<WordBranch, string> {
  return {
    name: `EXISTS (SELECT 1 FROM redemptions r WHERE ${base} AND ${nameKey('r')} LIKE ${w})`,
    email: `EXISTS (SELECT 1 FROM customers c JOIN redemptions r ON r.customer_id = c.id
                     WHERE ${emailStarts('c', w)} AND ${base})`,
    code: `EXISTS (SELECT 1 FROM voucher_codes v JOIN redemptions r ON r.voucher_code_id = v.id
                    WHERE v.code LIKE ${k} AND ${base})`,
  };
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
 * parameters: run by the list's repository. It answers `path` and, for `words`, `branches`: those the list holds
 * (each probe a b-tree range read from its start; none asked once the full name is found).
 */
export function searchPathQuery(base: string, params: unknown[], term: string): { sql: string; params: unknown[] } {
  const n = params.length;
  // Every parameter but the substring pattern, which only the `inside` forms use.
  const ph = { t: `$${n + 1}`, w: `$${n + 2}`, c: '', k: `$${n + 3}` };
  const [t, w, , k] = allParams(term);
  const starts = branchProbes(base, ph);
  const found = WORD_BRANCHES.map((branch) => `CASE WHEN ${starts[branch]} THEN '${branch}' END`).join(', ');
  const sql = `SELECT CASE WHEN n.exact THEN 'name' WHEN cardinality(b.branches) > 0 THEN 'words' ELSE 'inside' END AS path,
                      b.branches
                 FROM (SELECT ${nameProbe(base, ph)} AS exact) n
                 CROSS JOIN LATERAL (SELECT CASE WHEN n.exact THEN '{}'::text[]
                                            ELSE array_remove(ARRAY[${found}]::text[], NULL) END AS branches) b`;
  return { sql, params: [...params, t, w, k] };
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
export function pathPlaceholders(
  path: SearchPath,
  first: number,
  branches: readonly WordBranch[] = WORD_BRANCHES,
): Placeholders {
  const [a, b] = [`$${first}`, `$${first + 1}`];
  if (path === 'name') return { t: a, w: '', c: '', k: '' };
  if (path === 'words') return startsWords(branches) ? { t: '', w: a, c: '', k: b } : { t: '', w: '', c: '', k: a };
  return { t: '', w: '', c: a, k: '' };
}

/**
 * The three forms of a path's test (the list module's `indexed`, `joined`, `matches`; docs/architecture.md "Lists"),
 * `base` filtering `r`, the parameters at `ph`, and the walk's lookups `joined` reads (`c`: the customer's e-mail,
 * `v`: the code). The `words` path tests the `branches` the list holds (all by default): a branch the list does not
 * hold matches none of its rows, so leaving it out, and the exclusions of it, changes no answer.
 */
export function searchForms(
  path: SearchPath,
  base: string,
  ph: Placeholders,
  branches: readonly WordBranch[] = WORD_BRANCHES,
) {
  if (path === 'name') {
    const test = `${nameKey('r')} = ${ph.t}`;
    return { indexed: test, joined: test, ordered: true, lookups: [] };
  }
  if (path === 'words') return wordForms(base, ph, new Set(branches));
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
    lookups: ['c', 'v'],
  };
}

/** The `words` path's forms over the branches the list holds (at least one). */
function wordForms(base: string, { w: p, k }: Placeholders, has: Set<WordBranch>) {
  const names = (r: string) => `${nameKey(r)} LIKE ${p}`;
  const notEmail = (cu: string) => `${emailStarts(cu, p)} IS NOT TRUE`;
  const email = has.has('email');
  // Code, then e-mail, then name: each later branch leaves out the rows of an earlier one it holds.
  const matches: string[] = [];
  const indexed: string[] = [];
  const joined: string[] = [];
  if (has.has('code')) {
    matches.push(`SELECT r.id, r.redeemed_at FROM voucher_codes v2 JOIN redemptions r ON r.voucher_code_id = v2.id
                  ${email ? 'JOIN customers c2 ON c2.id = r.customer_id' : ''}
                 WHERE v2.code LIKE ${k} AND ${base}${email ? ` AND ${notEmail('c2')}` : ''}${
                   has.has('name') ? ` AND NOT ${names('r')}` : ''
                 }`);
    indexed.push(
      `SELECT r2.id FROM voucher_codes v2 JOIN redemptions r2 ON r2.voucher_code_id = v2.id WHERE v2.code LIKE ${k}`,
    );
    joined.push(`v.code LIKE ${k}`);
  }
  if (email) {
    matches.push(`SELECT r.id, r.redeemed_at FROM customers c3 JOIN redemptions r ON r.customer_id = c3.id
                 WHERE ${emailStarts('c3', p)} AND ${base}`);
    indexed.push(
      `SELECT r3.id FROM customers c3 JOIN redemptions r3 ON r3.customer_id = c3.id WHERE ${emailStarts('c3', p)}`,
    );
    joined.push(emailStarts('c', p));
  }
  if (has.has('name')) {
    matches.push(`SELECT r.id, r.redeemed_at FROM redemptions r
                  ${email ? 'JOIN customers c4 ON c4.id = r.customer_id' : ''}
                 WHERE ${names('r')} AND ${base}${email ? ` AND ${notEmail('c4')}` : ''}`);
    indexed.push(`SELECT r4.id FROM redemptions r4 WHERE ${names('r4')}`);
    joined.push(names('r'));
  }
  return {
    matches: matches.join('\nUNION ALL\n'),
    indexed: `r.id IN (${indexed.join('\nUNION\n')})`,
    joined: `(${joined.join(' OR ')})`,
    lookups: [...(has.has('code') ? ['v'] : []), ...(email ? ['c'] : [])],
  };
}
