import { EntityManager } from 'typeorm';

/** Rows of an UPDATE/DELETE … RETURNING: TypeORM's postgres driver answers those as `[rows, rowCount]`. */
export async function modifyReturning<T = Record<string, any>>(
  manager: EntityManager,
  sql: string,
  params: unknown[],
): Promise<T[]> {
  const [rows] = (await manager.query(sql, params)) as [T[], number];
  return rows;
}
