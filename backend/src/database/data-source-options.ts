import { DataSourceOptions } from 'typeorm';
import { ENTITIES } from './entities';
import { MIGRATIONS } from './migrations';

export function dataSourceOptions(url: string, extra: Partial<DataSourceOptions> = {}): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    // Schema changes go through migrations only.
    synchronize: false,
    // Pool sized for a redemption burst; each redemption holds one connection for one short transaction.
    extra: { max: Number(process.env.DB_POOL_SIZE ?? 20) },
    ...extra,
  } as DataSourceOptions;
}
