import 'reflect-metadata';
import 'dotenv/config';
import { Logger } from '@nestjs/common';
import { createEmbeddedWorkerContext, createHttpApp, createWorkerContext, prepareDatabase } from './app.factory';
import { ConfigError, loadConfig } from './config/app-config';
import { PinoNestLogger, prettyLogs } from './config/logging';
import type { ChildProcess } from 'child_process';
import {
  demoAdminPassword,
  demoBanner,
  demoEnv,
  DEMO_MARKETPLACE_PRODUCT,
  firstStartBanner,
  seedDemo,
  startDemoMarketplace,
} from './demo';
import { AdminBootstrapService } from './modules/auth/admin-bootstrap.service';
import { JOBS_WORKER_ARG, WorkerProcessOptions } from './modules/jobs/worker-process';

/**
 * A Ctrl+C or SIGTERM that comes while the service is still starting: the start finishes (or fails, when the signal
 * stopped the embedded PostgreSQL too), then the service stops as it would once running, without a stack trace.
 */
let stopRequested: NodeJS.Signals | undefined;
const requestStop = (signal: NodeJS.Signals) => (stopRequested ??= signal);

async function main(): Promise<void> {
  process.once('SIGINT', requestStop);
  process.once('SIGTERM', requestStop);
  const worker = process.argv.includes('--worker');
  // The embedded default's job worker, forked by the API process (modules/jobs/worker-process.ts).
  const jobsWorker = process.argv.includes(JOBS_WORKER_ARG);
  const demo = !worker && !jobsWorker && process.argv.includes('--demo');
  const demoPassword = demo ? demoAdminPassword(process.env) : undefined;
  const env = demo ? demoEnv(process.env, demoPassword) : process.env;
  const config = loadConfig(env);
  // Start-up logs (embedded PostgreSQL at debug level, migrations) in the format and level of the rest.
  Logger.overrideLogger(PinoNestLogger.create(config));
  if (worker && !config.redisUrl) {
    throw new ConfigError('npm run worker needs REDIS_URL: without Redis, npm start runs its own job worker');
  }
  if (jobsWorker) {
    process.off('SIGINT', requestStop).off('SIGTERM', requestStop);
    return runJobsWorker(config);
  }
  const database = await prepareDatabase(config);
  // Without Redis the jobs run in a worker process of our own, on the other core (EMBEDDED_WORKER=false: in this one).
  const workerProcess =
    !worker && !config.redisUrl && config.embeddedWorker ? jobsWorkerOptions(env, database.url) : undefined;
  const app = worker
    ? await createWorkerContext(config, database.url)
    : await createHttpApp(config, database.url, { workerProcess });
  // On SIGINT/SIGTERM: close Nest (HTTP, queues, connections, the jobs worker), then stop the embedded PostgreSQL,
  // then exit. (Nest's own shutdown hooks would re-raise the signal and kill the process before the database stops.)
  let stopping = false;
  let marketplace: ChildProcess | undefined;
  const stop = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    marketplace?.kill('SIGTERM');
    // Stopped before listen(): Nest still holds the start's lines in its buffer (bufferLogs), and so would this one.
    app.flushLogs();
    new Logger('Main').log(`${signal}: shutting down`);
    try {
      await app.close();
    } finally {
      await database.stop?.();
      process.exit(0);
    }
  };
  process.off('SIGINT', requestStop).once('SIGINT', (signal) => void stop(signal));
  process.off('SIGTERM', requestStop).once('SIGTERM', (signal) => void stop(signal));
  if (stopRequested) return stop(stopRequested);
  if (!worker) {
    const http = app as Awaited<ReturnType<typeof createHttpApp>>;
    await http.listen(config.port);
    new Logger('Main').log(`Listening on http://localhost:${config.port}`);
    // After start-up: the admin account exists by now (created at bootstrap on a fresh database).
    if (demo) {
      const seed = await seedDemo(http, config, demoPassword);
      marketplace = seed.admin.password ? startDemoMarketplace(env, config.port, seed.admin.password) : undefined;
      console.log(demoBanner(seed, config.port, config, marketplace && DEMO_MARKETPLACE_PRODUCT));
    } else {
      // A first start's generated password, last and framed (its log line above is the one JSON logs keep).
      const admin = http.get(AdminBootstrapService).takeGeneratedPassword();
      if (admin && prettyLogs(config)) console.log(firstStartBanner(admin, config.port));
    }
  }
}

/** The worker is this very entry (main.js, or main.ts under ts-node) with the API's Node options and settings. */
function jobsWorkerOptions(env: NodeJS.ProcessEnv, databaseUrl: string): WorkerProcessOptions {
  const defined = Object.fromEntries(Object.entries(env).filter(([, value]) => value !== undefined));
  return {
    entry: __filename,
    // A debugger's port cannot be shared.
    execArgv: process.execArgv.filter((arg) => !arg.startsWith('--inspect')),
    // The database the API prepared (embedded or DATABASE_URL): migrated already, the worker only connects.
    env: { ...defined, DATABASE_URL: databaseUrl },
  };
}

/**
 * The forked worker: no HTTP, no migrations (the API ran them). It stops when the API tells it to (SIGTERM) or is
 * gone (the IPC channel closes); a terminal's Ctrl-C reaches it too, but the API stops it in order.
 */
async function runJobsWorker(config: ReturnType<typeof loadConfig>): Promise<void> {
  const app = await createEmbeddedWorkerContext(config, config.databaseUrl!);
  let stopping = false;
  const stop = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    new Logger('JobsWorker').log(`${reason}: shutting down`);
    try {
      await app.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGINT', () => undefined);
  process.once('SIGTERM', () => void stop('SIGTERM'));
  process.once('disconnect', () => void stop('API process gone'));
}

main().catch((err) => {
  if (stopRequested) {
    // The signal reached the embedded PostgreSQL as well (one terminal, one process group), and the start failed.
    console.error(`${stopRequested}: stopped before the start finished`);
    process.exit(0);
  } else if (err instanceof ConfigError) {
    console.error(`Configuration error: ${err.message}`);
  } else {
    console.error(err);
  }
  process.exit(1);
});
