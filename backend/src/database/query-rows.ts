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
