import { INestApplication, INestApplicationContext, Logger as NestLogger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { DocumentBuilder, SwaggerModule } from '@nestjs/swagger';
import helmet from 'helmet';
import { Logger } from 'nestjs-pino';
import { resolve } from 'path';
import { AppModule, AppModuleOptions } from './app.module';
import { createValidationPipe } from './common/validation';
import { AppConfig } from './config/app-config';
import { DataCipher } from './config/data-cipher';
import { startEmbeddedPostgres } from './database/embedded-postgres';
import { RedisIoAdapter } from './modules/realtime/redis-io.adapter';
import { runMigrations } from './database/migrate';
import { apiCompression, frontendMiddleware } from './static-assets';
import { blockedIpMiddleware } from './modules/auth/blocked-ip.middleware';
import { BlockedIpService } from './modules/auth/blocked-ip.service';

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
  // Licence keys still stored in clear are sealed under DATA_KEY before anything serves (DECISIONS §12).
  const { sealed } = await runMigrations(database.url, DataCipher.fromConfig(config));
  if (sealed) new NestLogger('Database').log(`Sealed ${sealed} licence keys stored in clear under DATA_KEY`);
  return database;
}

/** The HTTP application: API under /api, OpenAPI at /api/docs, the built React app for everything else. */
export async function createHttpApp(
  config: AppConfig,
  databaseUrl: string,
  logging: Pick<AppModuleOptions, 'logStream'> = {},
): Promise<INestApplication> {
  const app = await NestFactory.create<NestExpressApplication>(
    AppModule.forRoot(config, { databaseUrl, processJobs: config.workersInApi, ...logging }),
    { bufferLogs: true },
  );
  app.useLogger(app.get(Logger));
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.setGlobalPrefix('api');
  app.use(helmet({ crossOriginEmbedderPolicy: false }));
  app.use('/api', apiCompression());
  // Blocked client addresses get 403 on everything, the web app and unknown paths included.
  app.use(blockedIpMiddleware(app.get(BlockedIpService)));
  app.useGlobalPipes(createValidationPipe());
  // Real-time events cross API instances through Redis when there is one (DECISIONS §11).
  if (config.redisUrl) app.useWebSocketAdapter(new RedisIoAdapter(app, config.redisUrl, config.redisPrefix));

  const openApi = new DocumentBuilder()
    .setTitle('Office licence redemption API')
    .setDescription('Public redemption calls and the admin console API')
    .setVersion('1')
    .addBearerAuth()
    .build();
  SwaggerModule.setup('api/docs', app, () => SwaggerModule.createDocument(app, openApi));

  if (config.serveFrontend) app.use(frontendMiddleware(resolve(process.cwd(), 'frontend', 'dist')));
  return app;
}

/** A worker process: the job processors without HTTP (`npm run worker`, needs REDIS_URL). */
export async function createWorkerContext(config: AppConfig, databaseUrl: string): Promise<INestApplicationContext> {
  const app = await NestFactory.createApplicationContext(AppModule.forRoot(config, { databaseUrl, processJobs: true }), {
    bufferLogs: true,
  });
  app.useLogger(app.get(Logger));
  return app;
}
