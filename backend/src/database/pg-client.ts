import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';

/**
 * A raw client from TypeORM's own pg pool, for what the ORM cannot do: COPY and server-side cursors.
 * The caller must `release()` it (pass `true` to discard a client left in an unknown state).
 */
export function rawPgClient(dataSource: DataSource): Promise<PoolClient> {
  return pgPool(dataSource).connect();
}

/** TypeORM's own pg pool, for hot paths that want named (prepared) statements. */
export function pgPool(dataSource: DataSource): Pool {
  return (dataSource.driver as any).master;
}
