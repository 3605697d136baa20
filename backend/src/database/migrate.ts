import { DataSource } from 'typeorm';
import { dataSourceOptions } from './data-source-options';

/** Arbitrary constant: the advisory lock that serialises migrations when several instances boot at once. */
const MIGRATION_LOCK = 724_311_001;

/**
 * Migrations, then `afterMigrations` (the application's start-up steps, such as sealing keys still stored in
 * clear), both under the migration lock: of instances starting together one does the work, the others find
 * nothing left. Answers what `afterMigrations` answered.
 */
export async function runMigrations<T = void>(
  databaseUrl: string,
  afterMigrations?: (dataSource: DataSource) => Promise<T>,
): Promise<T | undefined> {
  const dataSource = new DataSource(dataSourceOptions(databaseUrl, { extra: { max: 1 }, logging: false }));
  await dataSource.initialize();
  try {
    await dataSource.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await dataSource.runMigrations({ transaction: 'each' });
      return afterMigrations ? await afterMigrations(dataSource) : undefined;
    } finally {
      await dataSource.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    await dataSource.destroy();
  }
}
