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
 * The API's sessions run without parallel query workers and without JIT compilation: its statements are short and many
 * run at once. The two workers PostgreSQL starts for a plan it expects to be large cost more than the statement itself
 * (a search's collect: 7.5 ms with them, 0.1 ms without, docs/benchmarks.md "No parallel workers for the API's
 * statements"), and a plan costed above `jit_above_cost` (any that may read a large table, even one a LIMIT ends at
 * once) loads LLVM into a connection that has not yet compiled: ~70 ms, once per connection, for the list's estimate
 * of its rows ("A connection's first plan"). A code export's COPY gets PostgreSQL's defaults back for its held
 * connection (`BULK_READ_SET`, DatabaseService.withClient's `parallel`).
 */
export const API_SESSION_OPTIONS = '-c max_parallel_workers_per_gather=0 -c jit=off';

/** A code export's held connection: PostgreSQL's own defaults for a large read, which the API's sessions turn off. */
const BULK_READ_SETTINGS = [
  ['max_parallel_workers_per_gather', '2'],
  ['jit', 'on'],
] as const;

/** BULK_READ_SETTINGS set on a held connection: for its transaction (`local`), or until BULK_READ_RESET. */
export const BULK_READ_SET = {
  local: BULK_READ_SETTINGS.map(([name, value]) => `SET LOCAL ${name} = ${value}`).join('; '),
  session: BULK_READ_SETTINGS.map(([name, value]) => `SET ${name} = ${value}`).join('; '),
};
export const BULK_READ_RESET = BULK_READ_SETTINGS.map(([name]) => `RESET ${name}`).join('; ');

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
