import { INestApplication, INestApplicationContext, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication, NestExpressBodyParserOptionsFor } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import { Logger, PinoLogger } from 'nestjs-pino';
import type { Logger as PinoRootLogger } from 'pino';
import { resolve } from 'path';
import { AppModule, AppModuleOptions } from './app.module';
import { AppMetrics } from './common/metrics';
import { noStore } from './common/no-store';
import { verifyJsonDepth } from './common/json-depth';
import type { IncomingMessage } from 'http';
import { keepSignedRawBody } from './modules/marketplace/raw-body';
import { requestLog } from './common/request-log';
import { securityHeaders } from './common/security-headers';
import { untoldProxyWarning } from './common/untold-proxy';
import { bindInventoryMasking } from './common/inventory/inventory.interceptor';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import { DataCipher } from './config/data-cipher';
import { QuietBootLogger } from './config/logging';
import { startEmbeddedPostgres } from './database/embedded-postgres';
import { RedisIoAdapter, workerEventServer } from './modules/realtime/redis-io.adapter';
import { emitThrough, receiveWorkerEvents, relayingServer } from './modules/realtime/worker-relay';
import { serveApiProcess } from './modules/jobs/worker-process';
import { runMigrations } from './database/migrate';
import { publicConfigOf } from './modules/public-config/public-config';
import { sealKeysStoredInClear } from './keys-at-rest';
import { apiCompression, frontendMiddleware } from './static-assets';
import { createOpenApiDocument, setApiPrefix } from './openapi';
import { blockedIpMiddleware } from './modules/auth/blocked-ip.middleware';
import { BlockedIpService } from './modules/auth/blocked-ip.service';

export { UNPREFIXED_ROUTES } from './openapi';

export interface StartedDatabase {
  url: string;
  stop?: () => Promise<void>;
}

/** DATABASE_URL, or a real PostgreSQL started from the embedded-postgres package; migrations applied. */
export async function prepareDatabase(config: AppConfig): Promise<StartedDatabase> {
  let database: StartedDatabase = { url: config.databaseUrl ?? '' };
  if (!config.databaseUrl) {
    database = await startEmbeddedPostgres(config.dataDir, config.embeddedPostgresPort, new NestLogger('Database'));
  }
  // Licence keys, product keys and TOTP secrets still stored in clear are sealed under DATA_KEY before anything serves (docs/product.md §18.1).
  const cipher = DataCipher.fromConfig(config);
  const sealed = await runMigrations(database.url, (dataSource) => sealKeysStoredInClear(dataSource, cipher));
  if (sealed?.licenseKeys || sealed?.productKeys || sealed?.totpSecrets) {
    new NestLogger('Database').log(
      `Sealed ${sealed.licenseKeys} licence keys, ${sealed.productKeys} product keys and ${sealed.totpSecrets} TOTP secrets stored in clear under DATA_KEY`,
    );
  }
  return database;
}

/** The HTTP application: API under /api, OpenAPI at /api/docs (API_DOCS=public), the built React app for everything else. */
export async function createHttpApp(
  config: AppConfig,
  databaseUrl: string,
  options: Pick<AppModuleOptions, 'logStream' | 'workerProcess'> = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, { databaseUrl, processJobs: config.workersInApi, ...options }),
    { bufferLogs: true },
  );
  app.useLogger(new QuietBootLogger(app.get(Logger)));
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  // No ETag from Express's `res.send`: the API's answers are never stored, so never revalidated; the web app's pages
  // and files set their own (static-assets.ts).
  app.disable('etag');
  setApiPrefix(app);
  // First, so the histogram times everything that follows.
  app.use(app.get(AppMetrics).httpMiddleware());
  app.use(securityHeaders({ crossOriginEmbedderPolicy: false }));
  app.use('/api', noStore, apiCompression());
  if (config.trustProxy === false) {
    const logger = app.get(Logger);
    app.use(untoldProxyWarning((message) => logger.warn(message, 'TrustProxy')));
  }
  // Blocked client addresses get 403 on everything, the web app and unknown paths included.
  app.use(blockedIpMiddleware(app.get(BlockedIpService)));
  app.useGlobalPipes(createValidationPipe());
  // Before init() builds the routes: the routes whose declared answer carries inventory get its serializer.
  bindInventoryMasking(app);
  // Real-time events cross API instances through Redis when there is one (docs/product.md §17.1).
  if (config.redisUrl) app.useWebSocketAdapter(new RedisIoAdapter(app, config.redisUrl, config.redisPrefix));
  // The embedded worker's real-time events (e-mail outcomes) reach this process's sockets (worker-process.ts).
  if (options.workerProcess && !config.redisUrl) receiveWorkerEvents(app);

  // API_DOCS=off (the production default): /api/docs and /api/docs-json answer 404 like any unknown API path.
  if (config.apiDocs === 'public') serveApiDocs(app);

  if (config.serveFrontend) {
    app.use(frontendMiddleware(resolve(process.cwd(), 'frontend', 'dist'), publicConfigOf(config)));
  }
  // Each request Nest handles gets its id and logger, and its line when answered (docs/product.md §18.4 for what the
  // line keeps): last of these, so the web app's files, the API docs and blocked addresses' 403s stay out of the log,
  // and before init() mounts nestjs-pino's middleware, which hands `req.log` to the application. PinoLogger's logger
  // outside a request is the root logger nestjs-pino built from AppModule's options (typed with custom levels, as
  // nestjs-pino's own Store casts it: pino-http's request type has the plain Logger).
  const rootLogger = (await app.resolve(PinoLogger)).logger as unknown as PinoRootLogger;
  app.use(requestLog(rootLogger, { ignore: (req) => req.url === '/api/health' }));
  // Nest's own JSON parser (100 kB, where init() would mount it: after the middleware above), with the nesting bound
  // checked on the raw body before JSON.parse (common/json-depth.ts); init() then adds only the urlencoded one. Nest's
  // types reserve `verify` for `rawBody: true`, which this app does not use; without it the option is passed through.
  // The same hook keeps the raw body of a signed marketplace event (its signature covers the bytes sent).
  const verify = (req: IncomingMessage, res: unknown, body: Buffer, encoding: string) => {
    verifyJsonDepth(req, res, body, encoding);
    keepSignedRawBody(req, body);
  };
  app.useBodyParser('json', { verify } as NestExpressBodyParserOptionsFor<'json'>);
  return app;
}

function serveApiDocs(app: INestApplication): void {
  SwaggerModule.setup('api/docs', app, () => createOpenApiDocument(app));
}

/**
 * The embedded default's worker (`--jobs-worker`, forked by the API process without REDIS_URL): the in-process job
 * runner without HTTP, fed by the API over IPC; its real-time events go back the same way (worker-process.ts).
 */
export async function createEmbeddedWorkerContext(
  config: AppConfig,
  databaseUrl: string,
): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, { databaseUrl, processJobs: true }),
    {
      bufferLogs: true,
    },
  );
  app.useLogger(new QuietBootLogger(app.get(Logger)));
  serveApiProcess(app, (relay) => emitThrough(app, relayingServer(relay)));
  return app;
}

/** A worker process: the job processors without HTTP (`npm run worker`, needs REDIS_URL). */
export async function createWorkerContext(config: AppConfig, databaseUrl: string): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(
    AppModule.forRoot(config, { databaseUrl, processJobs: true }),
    {
      bufferLogs: true,
    },
  );
  app.useLogger(new QuietBootLogger(app.get(Logger)));
  // Events of the jobs (e-mail outcomes) reach the admins connected to the API instances through Redis.
  const events = workerEventServer(config.redisUrl!, config.redisPrefix);
  emitThrough(app, events.server);
  const close = app.close.bind(app);
  app.close = async () => {
    await close();
    await events.close();
  };
  return app;
}
