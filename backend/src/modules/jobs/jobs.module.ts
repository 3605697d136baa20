import { BullModule } from '@nestjs/bull';
import { DynamicModule, Global, Module, Provider } from '@nestjs/common';
import { AppConfig } from '../../config/app-config';
import { BullJobQueue, PROCESS_JOBS } from './bull-job-queue';
import { ChildProcessJobQueue } from './child-process-job-queue';
import { InProcessJobQueue } from './in-process-job-queue';
import { JobQueue } from './job-queue';
import { JobRegistry } from './job-registry';
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

/**
 * The job queue port (`JobQueue`, `JobRegistry`) and its runtimes. It imports no feature: features declare their
 * jobs in their own modules and register them in `JobRegistry` (docs/architecture.md "How to add a job"). Global,
 * like the database: every feature may queue work, and this module depends on none of them.
 */
@Global()
@Module({})
export class JobsModule {
  static forRoot(config: AppConfig, options: JobsModuleOptions): DynamicModule {
    let queue: Provider[];
    let imports: DynamicModule[] = [];
    if (config.redisUrl) {
      // The connection and key prefix of every Bull queue (BullJobQueue builds the queues the jobs name), and how
      // soon a dead worker's job is found stalled and run again (JOB_LOCK_MS).
      imports = [
        BullModule.forRoot({
          redis: config.redisUrl,
          prefix: config.redisPrefix,
          settings: { lockDuration: config.jobLockMs, stalledInterval: config.jobLockMs },
        }),
      ];
      queue = [
        { provide: PROCESS_JOBS, useValue: options.processJobs },
        { provide: JobQueue, useClass: BullJobQueue },
      ];
    } else if (options.workerProcess) {
      queue = [
        { provide: WORKER_PROCESS, useValue: options.workerProcess },
        ChildProcessJobQueue,
        { provide: JobQueue, useExisting: ChildProcessJobQueue },
      ];
    } else {
      queue = [{ provide: JobQueue, useClass: InProcessJobQueue }];
    }
    return {
      module: JobsModule,
      imports,
      providers: [JobRegistry, ...queue],
      exports: [JobQueue, JobRegistry, ...(options.workerProcess && !config.redisUrl ? [ChildProcessJobQueue] : [])],
    };
  }
}
