import { execFile } from 'child_process';
import { join } from 'path';
import { promisify } from 'util';
import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { MIGRATIONS } from '../backend/src/database/migrations';
import { AUTOVACUUM_SETTINGS } from '../backend/src/database/migrations/1763835000000-autovacuum-hot-tables';
import { createTestDatabase, TestDatabase } from './helpers/database';

/**
 * The entities are the schema: on a freshly migrated database TypeORM's schema builder (what
 * `npm run migration:generate` diffs) has nothing to change, and every index the migrations build is
 * declared on an entity, including those TypeORM cannot build itself (`synchronize: false`).
 */
describe('schema: entities and migrations agree', () => {
  let db: TestDatabase;
  let dataSource: DataSource;

  beforeAll(async () => {
    db = await createTestDatabase('ovr_schema');
    dataSource = new DataSource(dataSourceOptions(db.url, { migrationsRun: false }));
    await dataSource.initialize();
    await dataSource.runMigrations({ transaction: 'each' });
  });

  afterAll(async () => {
    await dataSource?.destroy();
    await db?.drop();
  });

  it('gives the schema builder nothing to do (migration:generate --check would pass)', async () => {
    const { upQueries } = await dataSource.driver.createSchemaBuilder().log();
    expect(upQueries.map((q) => q.query)).toEqual([]);
  });

  it('declares every index, unique and check constraint and foreign key of the database on an entity, by name', async () => {
    const declared = new Set<string>();
    for (const entity of dataSource.entityMetadatas) {
      for (const index of entity.indices) declared.add(`${entity.tableName}.${index.name}`);
      for (const unique of entity.uniques) declared.add(`${entity.tableName}.${unique.name}`);
      for (const check of entity.checks) declared.add(`${entity.tableName}.${check.name}`);
      for (const fk of entity.foreignKeys) declared.add(`${entity.tableName}.${fk.name}`);
    }
    const inDatabase: Array<{ name: string }> = await dataSource.query(`
      SELECT c.relname || '.' || i.relname AS name
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class c ON c.oid = x.indrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND NOT x.indisprimary AND c.relname <> 'migrations'
      UNION ALL
      SELECT c.relname || '.' || k.conname
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
       WHERE n.nspname = 'public' AND k.contype IN ('c', 'f', 'u') AND c.relname <> 'migrations'`);
    const missing = inDatabase.map((r) => r.name).filter((name) => !declared.has(name));
    expect(missing).toEqual([]);
  });

  // Storage parameters are not on the entities: the pool index's dead head is vacuumed away at a fixed number of
  // dead rows, not at 20% of a table of millions (migration 1763835000000); the codes' pages keep room for a HOT update.
  it('vacuums the hot tables at a fixed number of dead rows, at full speed, license_keys with its indexes', async () => {
    const rows: Array<{ table: string; options: string[] | null }> = await dataSource.query(
      `SELECT c.relname AS table, c.reloptions AS options FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = 'public' AND c.relkind = 'r' AND c.relname = ANY($1) ORDER BY 1`,
      [Object.keys(AUTOVACUUM_SETTINGS)],
    );
    const options = (r: { options: string[] | null }) => (r.options ?? []).map((o) => o.split('=') as [string, string]);
    const actual = Object.fromEntries(
      rows.map((r) => [r.table, Object.fromEntries(options(r).filter(([name]) => /vacuum/.test(name)))]),
    );
    expect(actual).toEqual(AUTOVACUUM_SETTINGS);
    // Room on each page of the codes for the redemption's heap-only update of its code (migration 1763845000000).
    const codes = rows.find((r) => r.table === 'voucher_codes')!;
    expect(Object.fromEntries(options(codes))).toMatchObject({ fillfactor: '90' });
    expect(actual.license_keys).toMatchObject({
      autovacuum_vacuum_scale_factor: '0',
      autovacuum_vacuum_cost_delay: '0',
      vacuum_index_cleanup: 'on',
    });
  });
});

/** The commands a developer runs (issue 15): the TypeORM CLI on `ormconfig.ts`, against a fresh database. */
describe('schema: the TypeORM CLI on ormconfig.ts', () => {
  let db: TestDatabase;
  const typeorm = (...args: string[]) =>
    promisify(execFile)('npx', ['typeorm-ts-node-commonjs', '-d', 'ormconfig.ts', ...args], {
      cwd: join(__dirname, '..'),
      env: { ...process.env, DATABASE_URL: db.url },
    });

  beforeAll(async () => {
    db = await createTestDatabase('ovr_schema_cli');
  });
  afterAll(() => db?.drop());

  it("migration:run builds the schema from the app's migration list, and migration:generate --check finds nothing to change", async () => {
    const run = await typeorm('migration:run');
    expect(run.stdout).toContain(`Migration ${MIGRATIONS[MIGRATIONS.length - 1].name} has been executed successfully.`);
    const check = await typeorm('migration:generate', '--check', '--dryrun', 'drift');
    expect(check.stdout).toContain('No changes in database schema were found');
  });
});
