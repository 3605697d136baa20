import { Global, Inject, Injectable, Module, OnApplicationShutdown, Optional } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../config/app-config';
import { DataCipher } from '../config/data-cipher';
import { AsyncLocalStorage } from 'async_hooks';
import type { Pool, PoolClient, QueryConfig, QueryResult, QueryResultRow } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { BulkLimiter } from './bulk-limiter';
import { StatementPipeline } from './statement-pipeline';
import { BULK_READ_RESET, BULK_READ_SET } from './data-source-options';

/** What a repository method runs its SQL on: the data source's manager, or a transaction's. */
export type Db = EntityManager;

/** A raw client held by `withClient()` (a streaming path's transaction), for repository methods that join it. */
export type SqlClient = Pick<PoolClient, 'query'>;

/**
 * What the code running now works in (one async context, one AsyncLocalStorage): a `transaction()`'s manager and
 * what waits for its commit, or the raw client a `withClient()` holds.
 */
type Active =
  | { manager: Db; afterCommit: (() => Promise<unknown>)[]; client?: undefined }
  | { client: SqlClient; manager?: undefined };

/**
 * The one way to run work in a transaction or on one held connection, and the one transaction handle: it is carried
 * in the async context, so no repository signature passes it. A repository runs its SQL on `current` (the running
 * `transaction()`'s manager, else the data source's); the streaming paths (COPY, cursors) hold a raw client of the
 * same pool through `withClient()`, which the repository methods joining that work read as `client`.
 */
@Injectable()
export class DatabaseService implements OnApplicationShutdown {
  /** DB_BULK_CONNECTIONS: uploads and exports never hold more connections than this at once. */
  private readonly bulk: BulkLimiter;
  /** DB_PIPELINE_CONNECTIONS (0: none); opened with the pool's settings on the first `pipelined` statement. */
  private readonly pipelineSize: number;
  private pipeline?: StatementPipeline;
  /** The transaction of the code running now (async context), for domain events' listeners (docs/architecture.md). */
  private readonly active = new AsyncLocalStorage<Active>();

  constructor(
    private readonly dataSource: DataSource,
    // Absent in the admin CLI, which runs no bulk work: the defaults then.
    @Optional()
    @Inject(APP_CONFIG)
    config?: Pick<AppConfig, 'dbBulkConnections' | 'dbBulkWaitMs' | 'dbPipelineConnections'>,
  ) {
    this.bulk = new BulkLimiter(config?.dbBulkConnections ?? 4, config?.dbBulkWaitMs ?? 2000);
    this.pipelineSize = config?.dbPipelineConnections ?? 0;
  }

  /** The manager outside any transaction (each statement is its own transaction). */
  get manager(): Db {
    return this.dataSource.manager;
  }

  /**
   * The active `transaction()`'s manager when called from inside one (the same async context), else `manager`.
   * Domain events' in-transaction listeners write through it, so their rows commit or roll back with the write.
   */
  get current(): Db {
    return this.active.getStore()?.manager ?? this.dataSource.manager;
  }

  /**
   * `fn` in one transaction: committed when it resolves, rolled back when it throws. Callbacks given to
   * `afterCommit` meanwhile run once it committed, in order, before this resolves; none runs when it rolled back.
   * A transaction started inside another (a second connection) hands its callbacks to the outer one.
   */
  async transaction<T>(fn: (db: Db) => Promise<T>): Promise<T> {
    const outer = this.active.getStore();
    const afterCommit: (() => Promise<unknown>)[] = [];
    const result = await this.dataSource.transaction((manager) =>
      this.active.run({ manager, afterCommit }, () => fn(manager)),
    );
    if (outer?.manager) outer.afterCommit.push(...afterCommit);
    else for (const run of afterCommit) await run();
    return result;
  }

  /** `fn` once the active `transaction()` committed (never if it rolls back); at once outside one. */
  async afterCommit(fn: () => Promise<unknown>): Promise<void> {
    const active = this.active.getStore();
    if (active?.manager) active.afterCommit.push(fn);
    else await fn();
  }

  /**
   * One raw `pg` client of TypeORM's pool for `fn` (COPY and cursors, which the ORM cannot stream), inside
   * `BEGIN … COMMIT` when `transaction` is set. When `fn` throws, the client is discarded rather than
   * returned to the pool: closing the connection rolls its transaction back, and a client left mid-COPY
   * could not be trusted with a ROLLBACK anyway.
   * `bulk` (uploads, exports): one of at most DB_BULK_CONNECTIONS such clients; over that the call waits
   * DB_BULK_WAIT_MS for a slot, then throws 503 (BulkLimiter), leaving the rest of the pool to short requests.
   * `parallel` (a code export's `COPY (SELECT …) TO STDOUT`): the held connection plans with PostgreSQL's defaults
   * for a large read (BULK_READ_SET: parallel workers, JIT), and goes back to the pool without them.
   */
  async withClient<T>(
    fn: (client: PoolClient) => Promise<T>,
    { transaction = false, bulk = false, parallel = false } = {},
  ): Promise<T> {
    const release = bulk ? await this.bulk.acquire() : undefined;
    let client: PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      release?.();
      throw err;
    }
    // A connection that dies while held here between two queries (a restart, an administrator's terminate) fails
    // the next query on its own; noted here, the client is discarded rather than returned to the pool. (No error of
    // a pool connection is ever left uncaught: keepConnectionErrorsHandled, data-source-options.ts.)
    let lost: Error | undefined;
    const onError = (err: Error) => (lost = err);
    client.on('error', onError);
    let healthy = false;
    try {
      if (transaction) await client.query('BEGIN');
      // The API's sessions run without parallel workers or JIT (API_SESSION_OPTIONS); a large read given to COPY may use them.
      if (parallel) await client.query(transaction ? BULK_READ_SET.local : BULK_READ_SET.session);
      const held = client;
      const result = await this.active.run({ client: held }, () => fn(held));
      if (transaction) await client.query('COMMIT');
      else if (parallel) await client.query(BULK_READ_RESET);
      healthy = !lost;
      return result;
    } finally {
      client.removeListener('error', onError);
      client.release(!healthy);
      release?.();
    }
  }

  /**
   * The raw client the running `withClient()` holds (its COPY's temporary table and transaction), for the
   * repository methods that join that work; throws outside one.
   */
  get client(): SqlClient {
    const held = this.active.getStore()?.client;
    if (!held) throw new Error('No client is held here: DatabaseService.client is only for work inside withClient()');
    return held;
  }

  /** Uploads and exports holding a connection, waiting for one, and refused (503) since start. */
  get bulkLoad(): { active: number; waiting: number; refused: number } {
    return this.bulk.load;
  }

  /** TypeORM's own pg pool, for hot paths that run named (prepared) statements: parsed and planned once per connection. */
  get pool(): Pool {
    return (this.dataSource.driver as unknown as { master: Pool }).master;
  }

  /**
   * The redemption's statement (named, so parsed and planned once per connection) on the pipeline's connections
   * (StatementPipeline), or on the pool when DB_PIPELINE_CONNECTIONS is 0 or every pipelined connection is waiting.
   * Outside any transaction: it is its own.
   */
  pipelined<R extends QueryResultRow>(statement: QueryConfig): Promise<QueryResult<R>> {
    if (!this.pipelineSize) return this.pool.query<R>(statement);
    this.pipeline ??= new StatementPipeline(this.pool.options, this.pipelineSize, (s) => this.pool.query(s));
    return this.pipeline.query<R>(statement);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.pipeline?.end();
  }
}

/** DataCipher (licence keys at rest) sits with the database: every repository that reads a key opens it. */
@Global()
@Module({
  providers: [
    DatabaseService,
    { provide: DataCipher, useFactory: (config: AppConfig) => DataCipher.fromConfig(config), inject: [APP_CONFIG] },
  ],
  exports: [DatabaseService, DataCipher],
})
export class DatabaseModule {}
