import { BullModule } from '@nestjs/bull';
import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { MailModule } from '../mail/mail.module';
import { BullJobQueue } from './bull-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobHandlers } from './job-handlers.service';
import { JobQueue } from './job-queue';
import { MailProcessor, MaintenanceProcessor } from './job.processors';
import { QUEUE } from './jobs.constants';
import { RetentionRepository } from './retention.repository';

export interface JobsModuleOptions {
  /** False in an API process with WORKERS_IN_API=false: it queues jobs, workers run them. */
  processJobs: boolean;
}

@Global()
@Module({})
export class JobsModule {
  static forRoot(config: AppConfig, options: JobsModuleOptions): DynamicModule {
    const common: Provider[] = [RetentionRepository, JobHandlers];
    if (!config.redisUrl) {
      return {
        module: JobsModule,
        imports: [MailModule],
        providers: [...common, { provide: JobQueue, useClass: InProcessJobQueue }],
        exports: [JobQueue, JobHandlers],
      };
    }
    return {
      module: JobsModule,
      imports: [
        MailModule,
        BullModule.forRoot({ url: config.redisUrl, prefix: config.redisPrefix }),
        BullModule.registerQueue({ name: QUEUE.MAIL }, { name: QUEUE.MAINTENANCE }),
      ],
      providers: [
        ...common,
        { provide: JobQueue, useClass: BullJobQueue },
        ...(options.processJobs ? [MailProcessor, MaintenanceProcessor] : []),
      ],
      exports: [JobQueue, JobHandlers, BullModule],
    };
  }
}
