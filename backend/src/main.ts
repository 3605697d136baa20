import 'reflect-metadata';
import 'dotenv/config';
import { Logger } from '@nestjs/common';
import { createHttpApp, createWorkerContext, prepareDatabase } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';

async function main(): Promise<void> {
  const worker = process.argv.includes('--worker');
  const config = loadConfig();
  if (worker && !config.redisUrl) throw new ConfigError('npm run worker needs REDIS_URL: without Redis, jobs run inside the API');
  const database = await prepareDatabase(config);
  const app = worker ? await createWorkerContext(config, database.url) : await createHttpApp(config, database.url);
  if (database.stop) {
    // Stop the embedded PostgreSQL after Nest has closed its connections.
    const stop = async () => {
      await app.close();
      await database.stop!();
      process.exit(0);
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  }
  if (!worker) {
    await (app as Awaited<ReturnType<typeof createHttpApp>>).listen(config.port);
    new Logger('Main').log(`Listening on http://localhost:${config.port}`);
  }
}

main().catch((err) => {
  if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
