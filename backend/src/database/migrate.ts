import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/** Arbitrary constant: the advisory lock that serialises migrations when several instances boot at once. */
const MIGRATION_LOCK = 724_311_001;

export async function runMigrations(databaseUrl: string): Promise<void> {
  const dataSource = new DataSource({ ...dataSourceOptions(databaseUrl), extra: { max: 1 }, logging: false });
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}
