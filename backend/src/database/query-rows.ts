import type { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '../common/utils/sql';

/** Runs a raw query and answers its rows, whatever kind of statement it is (see `returnedRows`). */
export async function queryRows<T = Record<string, any>>(
  runner: DataSource | EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return returnedRows<T>(await runner.query(sql, params));
}

/**
 * One batch of a retention delete: at most `limit` rows of `table` matching `where` (whose parameters are
 * `params`, numbered from $1; the limit comes after them), so no statement holds locks on a large table for
 * long. Answers how many rows went. `table` and `where` are the owner repository's constants, never input.
 */
export async function deleteBatch(
  runner: DataSource | EntityManager,
  table: string,
  where: string,
  params: unknown[],
  limit: number,
): Promise<number> {
  const [{ n }] = await runner.query(
    `WITH d AS (DELETE FROM ${table} WHERE id IN (SELECT id FROM ${table} WHERE ${where} LIMIT $${params.length + 1}) RETURNING 1)
     SELECT count(*)::int AS n FROM d`,
    [...params, limit],
  );
  return n;
}
