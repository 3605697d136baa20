/**
 * Rows of a `DataSource.query` result. TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` but everything else (SELECT, INSERT, WITH ...) with the rows alone.
 */
export function returnedRows<T = Record<string, any>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}
