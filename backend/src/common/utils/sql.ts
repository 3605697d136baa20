import type { DataSource, EntityManager } from 'typeorm';

/**
 * Rows of a `DataSource.query` result. TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` but everything else (SELECT, INSERT, WITH ...) with the rows alone, which makes
 * `result.length` lie for an UPDATE ... RETURNING.
 */
export function returnedRows<T = Record<string, any>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** Runs a raw query and answers its rows, whatever kind of statement it is. */
export async function queryRows<T = Record<string, any>>(
  runner: DataSource | EntityManager,
  sql: string,
  params: unknown[] = [],
): Promise<T[]> {
  return returnedRows<T>(await runner.query(sql, params));
}

/** A LIKE/ILIKE pattern matching `text` anywhere, its wildcards taken literally (voucher codes may contain `_`). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
