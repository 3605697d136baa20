import type { DataSource } from 'typeorm';

/**
 * Up to this many matches a list's total is exact; beyond it, PostgreSQL's estimate is returned with
 * `totalCountExact: false` (counting hundreds of thousands of rows exactly costs more than the page).
 */
export const COUNT_CAP = 1000;

/** PostgreSQL's estimate of the rows a statement returns (a plan, not a run: about a millisecond). */
export async function estimateRows(db: DataSource, sql: string, params: unknown[]): Promise<number> {
  const [row] = await db.query(`EXPLAIN (FORMAT JSON) ${sql}`, params);
  const plan = row['QUERY PLAN'];
  return Math.round((typeof plan === 'string' ? JSON.parse(plan) : plan)[0].Plan['Plan Rows']);
}

/**
 * The number of rows `sql` returns: exact up to COUNT_CAP (a bounded scan), otherwise the estimate raised
 * above the cap. An estimate far above the cap skips the scan.
 */
export async function cappedCount(
  db: DataSource,
  sql: string,
  params: unknown[],
  estimate: number,
): Promise<{ count: number; exact: boolean }> {
  if (estimate > COUNT_CAP * 20) return { count: estimate, exact: false };
  const [{ n }] = await db.query(`SELECT count(*)::int AS n FROM (${sql} LIMIT ${COUNT_CAP + 1}) capped`, params);
  if (n <= COUNT_CAP) return { count: n, exact: true };
  return { count: Math.max(estimate, COUNT_CAP + 1), exact: false };
}
