import type { DataSource, EntityManager } from 'typeorm';

/**
 * Rows of a raw query. TypeORM's postgres driver answers UPDATE/DELETE ... RETURNING with
 * `[rows, affectedCount]` instead of the rows, which makes `result.length` lie; this unwraps it.
 */
export async function queryRows<T = Record<string, any>>(
  runner: DataSource | EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  const result = await runner.query(sql, params);
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}
