import { BullModule } from '@nestjs/bull';
import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { AuthModule } from '../auth/auth.module';
import { MailModule } from '../mail/mail.module';
import { PoolModule } from '../pool/pool.module';
import { CustomerCentreModule } from '../customer-centre/customer-centre.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { StatsModule } from '../stats/stats.module';
import { WebhookModule } from '../webhook/webhook.module';
import { BullJobQueue } from './bull-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobHandlers } from './job-handlers.service';
import { JobQueue } from './job-queue';
import { MailProcessor, MaintenanceProcessor, WebhookProcessor } from './job.processors';
import { QUEUE } from './jobs.constants';
import { ChildProcessJobQueue } from './child-process-job-queue';
import { WORKER_PROCESS, WorkerProcessOptions } from './worker-process';

export interface JobsModuleOptions {
  /** False in an API process with WORKERS_IN_API=false: it queues jobs, workers run them. */
  processJobs: boolean;
  /**
   * Without REDIS_URL: run the jobs in a worker process forked this way (the embedded default's API process, see
   * worker-process.ts); unset, they run in this process (the worker itself, tests, EMBEDDED_WORKER=false).
   */
  workerProcess?: WorkerProcessOptions;
}

@Global()
@Module({})
export class JobsModule {
  static forRoot(config: AppConfig, options: JobsModuleOptions): DynamicModule {
    const common: Provider[] = [JobHandlers];
    if (!config.redisUrl) {
      const queue: Provider[] = options.workerProcess
        ? [
            { provide: WORKER_PROCESS, useValue: options.workerProcess },
            ChildProcessJobQueue,
            { provide: JobQueue, useExisting: ChildProcessJobQueue },
          ]
        : [{ provide: JobQueue, useClass: InProcessJobQueue }];
      return {
        module: JobsModule,
        imports: [
          AuthModule,
          CustomerCentreModule,
          MailModule,
          PoolModule,
          RedemptionModule,
          StatsModule,
          WebhookModule,
        ],
        providers: [...common, ...queue],
        exports: [JobQueue, JobHandlers],
      };
    }
    return {
      module: JobsModule,
      imports: [
        AuthModule,
        CustomerCentreModule,
        MailModule,
        PoolModule,
        RedemptionModule,
        StatsModule,
        WebhookModule,
        BullModule.forRoot({ url: config.redisUrl, prefix: config.redisPrefix }),
        BullModule.registerQueue({ name: QUEUE.MAIL }, { name: QUEUE.MAINTENANCE }, { name: QUEUE.WEBHOOK }),
      ],
      providers: [
        ...common,
        { provide: JobQueue, useClass: BullJobQueue },
        ...(options.processJobs ? [MailProcessor, MaintenanceProcessor, WebhookProcessor] : []),
      ],
      exports: [JobQueue, JobHandlers, BullModule],
    };
  }
}
