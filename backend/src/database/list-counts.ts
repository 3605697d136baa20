import type { EntityManager } from 'typeorm';

/** Anything that runs SQL: a `Db` (EntityManager) or the DataSource itself. */
type Queryable = Pick<EntityManager, 'query'>;

/*
 * Up to `cap` matches a list's total is exact; beyond it, PostgreSQL's estimate is returned with
 * `totalCountExact: false`: counting a million rows exactly costs far more than the page itself.
 * A plain or filtered list counts index entries, cheap enough up to LIST_EXACT_COUNT_LIMIT (100,000);
 * a text search re-checks every match against the trigram index, so it counts exactly only up to 1,000
 * (a list may answer exactly beyond that when it has read every match anyway: the redemption list's narrow search).
 */
export const SEARCH_EXACT_COUNT_LIMIT = 1000;

export function exactCountLimit(search: string | undefined, listLimit: number): number {
  return search ? Math.min(SEARCH_EXACT_COUNT_LIMIT, listLimit) : listLimit;
}

/** PostgreSQL's estimate of the rows a statement returns (a plan, not a run: about a millisecond). */
export async function estimateRows(db: Queryable, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const plan = row['QUERY PLAN'];
  return Math.round((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan['Plan Rows']);
}

/**
 * The number of rows `sql` returns: exact up to `cap` (a bounded scan), otherwise the estimate raised
 * above the cap. An estimate well above the cap skips the scan.
 */
export async function cappedCount(
  db: Queryable,
  sql: string,
  params: unknown[],
  estimate: number,
  cap: number,
): Promise<{ count: number; exact: boolean }> {
  if (estimate > cap * 2) return { count: estimate, exact: false };
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM (${sql} LIMIT ${cap + 1}) capped`, params);
  if (n <= cap) return { count: n, exact: true };
  return { count: Math.max(estimate, cap + 1), exact: false };
}

/**
 * The total of a search whose page was found by walking the newest `windowSize` rows of a list
 * (`windowSql`: those rows, with the list's parameters; `matchSql`: the matches among them, with the
 * list's parameters and the search's after them). Exact when the window is the whole list
 * and the matches are within `cap`; otherwise an estimate: the window's share of matches applied to
 * the list's estimated size.
 */
export async function walkedCount(
  db: Queryable,
  windowSql: string,
  matchSql: string,
  params: unknown[],
  searchParams: unknown[],
  windowSize: number,
  listEstimate: number,
  cap: number,
): Promise<{ count: number; exact: boolean }> {
  const [[{ rows }], [{ matches }]] = await Promise.all([
    db.query(`SELECT count(*)::int AS rows FROM (${windowSql}) w`, params),
    db.query(`SELECT count(*)::int AS matches FROM (${matchSql} LIMIT ${cap + 1}) m`, [...params, ...searchParams]),
  ]);
  if (rows < windowSize && matches <= cap) return { count: matches, exact: true };
  const share = matches / Math.max(rows, 1);
  return { count: Math.max(Math.round(share * Math.max(listEstimate, rows)), matches), exact: false };
}
