import type { Pool } from 'pg';
import { RetentionModule } from '../../backend/src/modules/retention/retention.module';
import { DomainEventsModule } from '../../backend/src/events/domain-events.service';
import { DynamicModule, INestApplicationContext, Module, Type } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { prepareDatabase } from '../../backend/src/app.factory';
import { Clock } from '../../backend/src/common/clock';
import { AppMetrics } from '../../backend/src/common/metrics';
import { APP_CONFIG, AppConfig, loadConfig } from '../../backend/src/config/app-config';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { DatabaseModule, DatabaseService } from '../../backend/src/database/database.service';
import { dataSourceOptions } from '../../backend/src/database/data-source-options';
import { InProcessJobQueue } from '../../backend/src/modules/jobs/in-process-job-queue';
import { JobQueue } from '../../backend/src/modules/jobs/job-queue';
import { createMigratedDatabase, TestDatabase } from './database';
import { countedCodes, countedRedemptions } from './counted-sql';
import { testCiphers } from './factories';

/**
 * The medium tier (docs/testing.md): services and repositories on a real PostgreSQL database of their own, migrated
 * like the app's, without the HTTP app. Two ways in:
 * - `startMediumDatabase()`: a DataSource, DatabaseService and DataCipher; repositories are built with `new` over
 *   them (as keys-at-rest.ts and the CLI do), nothing else runs;
 * - `startMediumModule(imports)`: a Nest application context (no HTTP server, no controllers served) of the given
 *   modules over the same database, with the app's global providers (config, Clock, metrics, DatabaseModule). When
 *   the modules include JobsModule (in-process without REDIS_URL), its runner is stopped as soon as the context has
 *   started, once its start-up work (a sweep, retention and a pool check, on the fresh database) has finished: no
 *   e-mail job, sweep or retention runs behind the test's back; a test calls the job's owner itself (e.g. `RetentionJob.run`).
 * Each file makes its own database (`ovr_medium_…`) and `close()` drops it.
 */
export interface MediumDatabase {
  db: DataSource;
  database: DatabaseService;
  cipher: DataCipher;
  config: AppConfig;
  /** The database's name and URL (a second instance, a raw client). */
  testDatabase: TestDatabase;
  close(): Promise<void>;
}

export interface MediumModule extends MediumDatabase {
  app: INestApplicationContext;
  get<T>(token: Type<T> | string | symbol): T;
}

/** The configuration the medium tier runs with: the e2e defaults (test/helpers/app.ts) that concern services. */
function mediumConfig(databaseUrl: string, dataDir: string, env: Record<string, string | undefined>): AppConfig {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: databaseUrl,
    JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!!',
    REDEEM_RATE_LIMIT: '0',
    SERVE_FRONTEND: 'false',
    POOL_ALERT_MIN: '0',
    POOL_ALERT_DAYS: '0',
    ...env,
  });
}

async function freshDatabase(env: Record<string, string | undefined>) {
  const testDatabase = await createMigratedDatabase('ovr_medium');
  const dataDir = mkdtempSync(join(tmpdir(), 'ovr-medium-'));
  try {
    const config = mediumConfig(testDatabase.url, dataDir, env);
    // The app's start-up: migrations (none pending on the template's copy), then sealing what is still in clear.
    await prepareDatabase(config);
    return { testDatabase, dataDir, config };
  } catch (err) {
    await testDatabase.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** A fresh migrated database with a DataSource (pool of 4), its DatabaseService and the DATA_KEY cipher. */
export async function startMediumDatabase(env: Record<string, string | undefined> = {}): Promise<MediumDatabase> {
  const { testDatabase, dataDir, config } = await freshDatabase(env);
  const db = new DataSource(dataSourceOptions(testDatabase.url, { extra: { max: 4 } }));
  await db.initialize();
  const cipher = DataCipher.fromConfig(config);
  testCiphers.set(db, cipher);
  const database = new DatabaseService(db, config);
  return {
    db,
    database,
    cipher,
    config,
    testDatabase,
    close: async () => {
      // The redemption's pipelined connections (DatabaseService.pipelined), which the pool does not hold.
      await database.onApplicationShutdown();
      await db.destroy();
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

@Module({})
class MediumRootModule {
  static forRoot(config: AppConfig, imports: NonNullable<DynamicModule['imports']>): DynamicModule {
    return {
      module: MediumRootModule,
      global: true,
      imports: [
        TypeOrmModule.forRoot(dataSourceOptions(config.databaseUrl!, { extra: { max: 4 } })),
        DatabaseModule,
        // Global in the app too: services publish what happened, the imported modules' listeners hear it; owners
        // register their retention deletes.
        DomainEventsModule,
        RetentionModule,
        ...imports,
      ],
      providers: [{ provide: APP_CONFIG, useValue: config }, Clock, AppMetrics],
      exports: [APP_CONFIG, Clock, AppMetrics],
    };
  }
}

/**
 * `imports` (the modules under test and what they need that is not global in the app) as a Nest application
 * context on a fresh migrated database: the services as the app wires them, no HTTP. `env` overrides settings.
 */
export async function startMediumModule(
  imports: NonNullable<DynamicModule['imports']> | ((config: AppConfig) => NonNullable<DynamicModule['imports']>),
  env: Record<string, string | undefined> = {},
): Promise<MediumModule> {
  const { testDatabase, dataDir, config } = await freshDatabase(env);
  let app: INestApplicationContext;
  try {
    app = await NestFactory.createApplicationContext(
      MediumRootModule.forRoot(config, typeof imports === 'function' ? imports(config) : imports),
      { logger: false, abortOnError: false },
    );
  } catch (err) {
    await testDatabase.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
  const queue = jobQueueOf(app);
  if (queue instanceof InProcessJobQueue) await queue.onApplicationShutdown();
  const db = app.get(DataSource);
  const cipher = app.get(DataCipher);
  testCiphers.set(db, cipher);
  return {
    app,
    db,
    database: app.get(DatabaseService),
    cipher,
    config,
    testDatabase,
    get: <T>(token: Type<T> | string | symbol) => app.get<T>(token as Type<T>, { strict: false }),
    close: async () => {
      await app.close();
      await testDatabase.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The context's JobQueue, when JobsModule is among its modules. */
function jobQueueOf(app: INestApplicationContext): JobQueue | undefined {
  try {
    return app.get(JobQueue, { strict: false });
  } catch {
    return undefined;
  }
}

/** A statement as sent through a DataSource: its SQL and parameters. */
export interface SentStatement {
  sql: string;
  params: unknown[];
  /** A named statement's name (prepared once per connection). */
  name?: string;
}

/**
 * The plan PostgreSQL picks for a statement (`EXPLAIN`, as text) with the planner's statistics of `rows` rows on the
 * real pages of `relations` (tables or indexes), set in a transaction that is rolled back after.
 */
export async function planAtRows(
  db: DataSource,
  { sql, params }: SentStatement,
  relations: string[],
  rows = 10_000_000,
): Promise<string> {
  const runner = db.createQueryRunner();
  try {
    await runner.startTransaction();
    await runner.query(`UPDATE pg_class SET reltuples = $1 WHERE relname = ANY($2)`, [rows, relations]);
    const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(`EXPLAIN ${sql}`, params);
    return plan.map((p) => p['QUERY PLAN']).join('\n');
  } finally {
    await runner.rollbackTransaction();
    await runner.release();
  }
}

/**
 * `fn`'s answer and the statements it sent through `db` and through its pool (the named statements of the hot paths,
 * `DatabaseService.pool`), captured as they were sent.
 */
export async function statementsSent<T>(
  db: DataSource,
  fn: () => Promise<T>,
): Promise<{ result: T; sent: SentStatement[] }> {
  const sent: SentStatement[] = [];
  const run = db.query.bind(db);
  const spy = jest.spyOn(db, 'query').mockImplementation(((sql: string, params?: unknown[]) => {
    sent.push({ sql, params: params ?? [] });
    return run(sql, params);
  }) as typeof db.query);
  const pool = (db.driver as unknown as { master: Pool }).master;
  const runOnPool = pool.query.bind(pool) as (config: unknown, values?: unknown[]) => Promise<unknown>;
  const poolSpy = jest.spyOn(pool, 'query').mockImplementation(((config: unknown, values?: unknown[]) => {
    const named = config as { text: string; values?: unknown[]; name?: string };
    sent.push(
      typeof config === 'string'
        ? { sql: config, params: values ?? [] }
        : { sql: named.text, params: named.values ?? [], name: named.name },
    );
    return runOnPool(config, values);
    // Cast past pool.query's overloads: the last one (a callback, returning void) would type the spy's answer.
  }) as never);
  try {
    return { result: await fn(), sent };
  } finally {
    spy.mockRestore();
    poolSpy.mockRestore();
  }
}

/**
 * `n` redemptions of `product` written by SQL, counted as the writers count them: customer g is `<prefix>g@example.net`
 * (first and last name `F<g>`, `L<g>`), code `<PREFIX>-g` (redeemed); `columns` adds redemption columns as SQL over `g`.
 */
export async function insertBulkRedemptions(
  db: DataSource,
  product: string,
  n: number,
  prefix: string,
  columns: Record<string, string> = {},
): Promise<void> {
  const code = `'${prefix.toUpperCase()}-' || g`;
  const email = `'${prefix}' || g || '@example.net'`;
  await db.query(
    `INSERT INTO customers (first_name, last_name, email)
     SELECT 'F' || g, 'L' || g, ${email} FROM generate_series(1, $1::int) g`,
    [n],
  );
  await db.query(
    countedCodes(
      `INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at)
       SELECT ${code}, $1, true, ${columns.redeemed_at ?? 'now()'} FROM generate_series(1, $2::int) g`,
    ),
    [product, n],
  );
  // The code and its redemption were redeemed at the same moment, as the redemption statement writes them.
  const extra = { email_status: `'sent'`, ...columns, redeemed_at: 'v.redeemed_at' };
  await db.query(
    countedRedemptions(`INSERT INTO redemptions (voucher_code_id, customer_id, product_id, first_name, last_name,
                                     ${Object.keys(extra).join(', ')})
     SELECT v.id, c.id, $1, c.first_name, c.last_name, ${Object.values(extra).join(', ')}
       FROM generate_series(1, $2::int) g
       JOIN voucher_codes v ON v.code = ${code} JOIN customers c ON c.email = ${email}`),
    [product, n],
  );
}
