import type { DataSource, EntityManager } from 'typeorm';
import { returnedRows } from '../common/utils/sql';
import type { DataCipher } from '../config/data-cipher';

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

/**
 * `rotate-data-key` for a sealed column of a few rows (secrets): each value still under DATA_KEY_PREVIOUS re-sealed
 * under DATA_KEY, guarded by the value read (a value changed meanwhile is left to the next run; rerun-safe).
 * Answers how many were re-sealed. `table` and `column` are the owner repository's constants, never input.
 */
export async function resealColumn(
  runner: DataSource | EntityManager,
  cipher: DataCipher,
  table: string,
  column: string,
): Promise<number> {
  const rows = await queryRows<{ id: string; sealed: Buffer }>(
    runner,
    `SELECT id, ${column} AS sealed FROM ${table} WHERE ${column} IS NOT NULL`,
  );
  let rotated = 0;
  for (const row of rows.filter((r) => cipher.isRotatable(r.sealed))) {
    const done = await queryRows(
      runner,
      `UPDATE ${table} SET ${column} = $3 WHERE id = $1 AND ${column} = $2 RETURNING id`,
      [row.id, row.sealed, cipher.seal(cipher.open(row.sealed))],
    );
    rotated += done.length;
  }
  return rotated;
}
