import type { EntityManager } from 'typeorm';
import { cappedTotal, Counted, walkedTotal, worthCounting } from './list-rules';

/** Anything that runs SQL: a `Db` (EntityManager) or the DataSource itself. */
export type Queryable = Pick<EntityManager, 'query'>;

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
): Promise<Counted> {
  if (!worthCounting(estimate, cap)) return { count: estimate, exact: false };
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM (${sql} LIMIT ${cap + 1}) capped`, params);
  return cappedTotal(n, cap, estimate);
}

/**
 * The total of a search whose page was found by walking the newest `windowSize` rows of a list
 * (`windowSql`: those rows, with the list's parameters; `matchSql`: the matches among them, with the
 * list's parameters and the search's after them); `walkedTotal` says what it is.
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
): Promise<Counted> {
  const [[{ rows }], [{ matches }]] = await Promise.all([
    db.query(`SELECT count(*)::int AS rows FROM (${windowSql}) w`, params),
    db.query(`SELECT count(*)::int AS matches FROM (${matchSql} LIMIT ${cap + 1}) m`, [...params, ...searchParams]),
  ]);
  return walkedTotal(rows, matches, windowSize, listEstimate, cap);
}
