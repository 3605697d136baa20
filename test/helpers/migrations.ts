import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../backend/src/database/data-source-options';
import { MIGRATIONS } from '../../backend/src/database/migrations';

/** Runs `migrations` (the pending ones of that list) on the database at `url`, each in its own transaction. */
export async function migrate(url: string, migrations: typeof MIGRATIONS = MIGRATIONS): Promise<void> {
  const dataSource = new DataSource(dataSourceOptions(url, { migrationsRun: false, migrations }));
  await dataSource.initialize();
  try {
    await dataSource.runMigrations({ transaction: 'each' });
  } finally {
    await dataSource.destroy();
  }
}

/** The migrations before `migration`: a database as it was just before it (a migration test's starting point). */
export function migrationsBefore(migration: (typeof MIGRATIONS)[number]): typeof MIGRATIONS {
  const index = MIGRATIONS.indexOf(migration);
  if (index <= 0) throw new Error(`${migration.name} is not a later migration of MIGRATIONS`);
  return MIGRATIONS.slice(0, index);
}
