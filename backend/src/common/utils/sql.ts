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

/** The PostgreSQL error behind `err`: a pg error straight from the pool, or the same wrapped by TypeORM. */
export function pgError(err: unknown): { code?: string; constraint?: string } {
  const e = err as { driverError?: unknown } | null;
  return ((e && typeof e === 'object' && e.driverError) || err || {}) as { code?: string; constraint?: string };
}

/** A unique violation (23505) of `constraint`. */
export function isUniqueViolation(err: unknown, constraint: string): boolean {
  const pg = pgError(err);
  return pg.code === '23505' && pg.constraint === constraint;
}
