import 'reflect-metadata';
import 'dotenv/config';
import { Logger } from '@nestjs/common';
import { createHttpApp, createWorkerContext, prepareDatabase } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { PinoNestLogger } from './config/logging';
import { demoAdminPassword, demoBanner, demoEnv, seedDemo } from './demo';

async function main(): Promise<void> {
  const worker = process.argv.includes('--worker');
  const demo = !worker && process.argv.includes('--demo');
  const demoPassword = demo ? demoAdminPassword(process.env) : undefined;
  const config = loadConfig(demo ? demoEnv(process.env, demoPassword) : process.env);
  // Start-up logs (embedded PostgreSQL at debug level, migrations) in the format and level of the rest.
  Logger.overrideLogger(PinoNestLogger.create(config));
  if (worker && !config.redisUrl) throw new ConfigError('npm run worker needs REDIS_URL: without Redis, jobs run inside the API');
  const database = await prepareDatabase(config);
  const app = worker ? await createWorkerContext(config, database.url) : await createHttpApp(config, database.url);
  // On SIGINT/SIGTERM: close Nest (HTTP, queues, connections), then stop the embedded PostgreSQL, then exit.
  // (Nest's own shutdown hooks would re-raise the signal and kill the process before the database stops.)
  let stopping = false;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    new Logger('Main').log(`${signal}: shutting down`);
    try {
      await app.close();
    } finally {
      await database.stop?.();
      process.exit(0);
    }
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  if (!worker) {
    const http = app as Awaited<ReturnType<typeof createHttpApp>>;
    await http.listen(config.port);
    new Logger('Main').log(`Listening on http://localhost:${config.port}`);
    // After start-up: the admin account exists by now (created at bootstrap on a fresh database).
    if (demo) console.log(demoBanner(await seedDemo(http, config, demoPassword), config.port, config));
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
