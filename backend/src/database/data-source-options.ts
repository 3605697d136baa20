import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

/**
 * The TypeORM options every data source of the service shares. The pool size comes from the caller
 * (`extra: { max }`): the API's from DB_POOL_SIZE (AppConfig), the migration runner and the CLI use one or two.
 */
export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes go through migrations only.
    synchronize: false,
    ...extra,
  } as DataSourceOptions;
}
