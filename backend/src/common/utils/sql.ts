/**
 * Rows of a `query()` result. TypeORM's PostgreSQL driver answers UPDATE and DELETE with
 * `[rows, rowCount]` but everything else (SELECT, INSERT, WITH ...) with the rows alone, which makes
 * `result.length` lie for an UPDATE ... RETURNING.
 */
export function returnedRows<T = Record<string, any>>(result: unknown): T[] {
  if (Array.isArray(result) && result.length === 2 && Array.isArray(result[0]) && typeof result[1] === 'number') {
    return result[0] as T[];
  }
  return result as T[];
}

/** A LIKE/ILIKE pattern matching `text` anywhere, its wildcards taken literally (voucher codes may contain `_`). */
export function likeContains(text: string): string {
  return `%${text.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`;
}
