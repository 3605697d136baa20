import { DynamicModule, Module, RequestMethod } from '@nestjs/common';
import { APP_FILTER } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { LoggerModule } from 'nestjs-pino';
import type { DestinationStream } from 'pino';
import type { Options as PinoHttpOptions } from 'pino-http';
import { Clock } from './common/clock';
import { AppMetrics } from './common/metrics';
import { AllExceptionsFilter } from './common/filters/all-exceptions.filter';
import { redactRequest, redactResponse } from './common/log-redaction';
import { APP_CONFIG, AppConfig } from './config/app-config';
import { logFormat } from './config/logging';
import { DatabaseModule } from './database/database.service';
import { API_SESSION_OPTIONS, dataSourceOptions } from './database/data-source-options';
import { DomainEventsModule } from './events/domain-events.service';
import { AuditModule } from './modules/audit/audit.module';
import { AuthModule } from './modules/auth/auth.module';
import { ExportModule } from './modules/export/export.module';
import { HealthModule } from './modules/health/health.module';
import { HistoryModule } from './modules/history/history.module';
import { CustomerCentreModule } from './modules/customer-centre/customer-centre.module';
import { JobsModule } from './modules/jobs/jobs.module';
import type { WorkerProcessOptions } from './modules/jobs/worker-process';
import { LicenseModule } from './modules/license/license.module';
import { MetricsModule } from './modules/metrics/metrics.module';
import { PublicConfigModule } from './modules/public-config/public-config.module';
import { PoolModule } from './modules/pool/pool.module';
import { RetentionModule } from './modules/retention/retention.module';
import { ProductModule } from './modules/product/product.module';
import { RealtimeModule } from './modules/realtime/realtime.module';
import { RedemptionModule } from './modules/redemption/redemption.module';
import { StatsModule } from './modules/stats/stats.module';
import { VoucherModule } from './modules/voucher/voucher.module';
import { WebhookModule } from './modules/webhook/webhook.module';
import { MarketplaceModule } from './modules/marketplace/marketplace.module';
import { RiskModule } from './modules/risk/risk.module';

export interface AppModuleOptions {
  /** The database URL resolved at boot (embedded PostgreSQL or DATABASE_URL). */
  databaseUrl: string;
  processJobs: boolean;
  /** The embedded default: jobs run in a worker process the API forks (JobsModuleOptions.workerProcess). */
  workerProcess?: WorkerProcessOptions;
  /** Where the request log goes instead of stdout (tests read it). */
  logStream?: DestinationStream;
}

@Module({})
export class AppModule {
  static forRoot(config: AppConfig, options: AppModuleOptions): DynamicModule {
    // The logger everything writes through (nestjs-pino builds it from these options); the request log itself is
    // common/request-log.ts, mounted by app.factory.ts, which hands nestjs-pino each request's logger (`useExisting`).
    const pinoHttpOptions: PinoHttpOptions = {
      level: config.logLevel,
      // Pretty on a developer's terminal, JSON lines otherwise (config/logging.ts); tests pass their own stream.
      ...(options.logStream ? {} : logFormat(config)),
      // docs/product.md §18.4 "Secrets in logs": tokens in paths, codes and secrets in bodies, credential headers.
      serializers: { req: redactRequest, res: redactResponse },
    };
    return {
      module: AppModule,
      global: true,
      imports: [
        LoggerModule.forRoot({
          forRoutes: [{ path: '{*path}', method: RequestMethod.ALL }],
          useExisting: true,
          pinoHttp: options.logStream ? [pinoHttpOptions, options.logStream] : pinoHttpOptions,
        }),
        TypeOrmModule.forRoot({
          ...dataSourceOptions(options.databaseUrl, {
            extra: { max: config.dbPoolSize, idleTimeoutMillis: config.dbPoolIdleMs, options: API_SESSION_OPTIONS },
          }),
          migrationsRun: true,
        }),
        DatabaseModule,
        DomainEventsModule,
        JobsModule.forRoot(config, { processJobs: options.processJobs, workerProcess: options.workerProcess }),
        AuditModule,
        AuthModule,
        RealtimeModule,
        LicenseModule,
        RedemptionModule,
        ProductModule,
        VoucherModule,
        StatsModule,
        ExportModule,
        PoolModule,
        HistoryModule,
        CustomerCentreModule,
        HealthModule,
        PublicConfigModule,
        WebhookModule,
        MarketplaceModule,
        RiskModule,
        MetricsModule,
        RetentionModule,
      ],
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: APP_FILTER, useClass: AllExceptionsFilter },
        Clock,
        AppMetrics,
      ],
      exports: [APP_CONFIG, Clock, AppMetrics],
    };
  }
}
