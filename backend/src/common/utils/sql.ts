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

/** `text` with LIKE's wildcards (and its escape character) escaped, to be taken literally. */
const escapeLike = (text: string) => text.replace(/[\\%_]/g, (ch) => `\\${ch}`);

/** A LIKE/ILIKE pattern matching `text` anywhere, its wildcards taken literally (voucher codes may contain `_`). */
export function likeContains(text: string): string {
  return `%${escapeLike(text)}%`;
}

/** A LIKE pattern matching text that starts with `text`, its wildcards taken literally. */
export function likePrefix(text: string): string {
  return `${escapeLike(text)}%`;
}
