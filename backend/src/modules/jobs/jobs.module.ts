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

export interface JobsModuleOptions {
  /** False in an API process with WORKERS_IN_API=false: it queues jobs, workers run them. */
  processJobs: boolean;
}

@Global()
@Module({})
export class JobsModule {
  static forRoot(config: AppConfig, options: JobsModuleOptions): DynamicModule {
    const common: Provider[] = [JobHandlers];
    if (!config.redisUrl) {
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
        providers: [...common, { provide: JobQueue, useClass: InProcessJobQueue }],
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
