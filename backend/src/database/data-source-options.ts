import type { PoolClient } from 'pg';
import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/**
 * Every connection of a pool listens for its own errors for as long as it lives. `pg-pool` listens only while a
 * connection is idle, and its holder (TypeORM's query runner, `pool.query`) only while it holds it: a connection that
 * PostgreSQL ends between the two (a restart, an administrator's terminate, a forced DROP DATABASE) was an uncaught
 * 'error' event, which ends the process. The holder still sees the failure on its next query, and the pool discards
 * the connection when it comes back (docs/api.md).
 */
export function keepConnectionErrorsHandled(client: PoolClient): void {
  client.on('error', () => undefined);
}

/**
 * The TypeORM options every data source of the service shares. The pool size comes from the caller
 * (`extra: { max }`): the API's from DB_POOL_SIZE (AppConfig), the migration runner and the CLI use one or two.
 */
export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  const pool = (extra as { extra?: Record<string, unknown> }).extra ?? {};
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes go through migrations only.
    synchronize: false,
    ...extra,
    // pg-pool's hook for each new connection, before it is handed out.
    extra: { ...pool, onConnect: keepConnectionErrorsHandled },
  } as DataSourceOptions;
}
