import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap } from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobQueue } from './job-queue';
import { JOB, QUEUE } from './jobs.constants';

@Injectable()
export class BullJobQueue extends JobQueue implements OnApplicationBootstrap {
  private readonly logger = new Logger('BullJobs');

  constructor(
    @InjectQueue(QUEUE.MAIL) private readonly mailQueue: Queue,
    @InjectQueue(QUEUE.MAINTENANCE) private readonly maintenanceQueue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
    // Without a listener an 'error' event (Redis down) would crash the process.
    for (const queue of [mailQueue, maintenanceQueue]) {
      queue.on('error', (err) => this.logger.warn(`Queue ${queue.name}: ${err.message}`));
    }
  }

  enqueueRedemptionMail(redemptionId: string): void {
    this.mailQueue
      .add(
        JOB.SEND_REDEMPTION_MAIL,
        { redemptionId },
        {
          // One live job per redemption; a finished job is removed, so a resend can queue again.
          jobId: `mail:${redemptionId}`,
          attempts: this.config.mailAttempts,
          backoff: { type: 'exponential', delay: this.config.mailBackoffMs },
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      )
      .catch((err) => this.logger.warn(`Could not queue e-mail for ${redemptionId} (the sweep will): ${err.message}`));
  }

  onApplicationBootstrap(): void {
    this.declareSchedules();
    // A Redis that comes back empty (restarted without persistence, a fresh replica after a failover) has
    // forgotten the repeatable jobs, and without the sweep a pending e-mail whose job was lost with it would
    // never go out. Declaring them again on every reconnect is harmless: they are keyed by name and interval.
    let connected = this.maintenanceQueue.client.status === 'ready';
    this.maintenanceQueue.client.on('ready', () => {
      if (connected) this.declareSchedules();
      connected = true;
    });
  }

  private declareSchedules(): void {
    // Repeatable jobs are keyed by name and interval, so every API instance may declare them.
    this.maintenanceQueue
      .add(
        JOB.SWEEP_PENDING_MAIL,
        {},
        { repeat: { every: this.config.mailSweepIntervalMs }, removeOnComplete: true, removeOnFail: 100 },
      )
      .catch((err) => this.logger.warn(`Could not schedule the pending-mail sweep: ${err.message}`));
    this.scheduleRetention().catch((err) => this.logger.warn(`Could not schedule the retention job: ${err.message}`));
  }

  /** Daily retention; a schedule left by an earlier RETENTION_INTERVAL_MS is removed, or both would run. */
  private async scheduleRetention(): Promise<void> {
    const every = this.config.retentionIntervalMs;
    for (const job of await this.maintenanceQueue.getRepeatableJobs()) {
      if (job.name === JOB.RETENTION_CLEANUP && Number(job.every) !== every) {
        await this.maintenanceQueue.removeRepeatableByKey(job.key);
      }
    }
    await this.maintenanceQueue.add(
      JOB.RETENTION_CLEANUP,
      {},
      { repeat: { every }, removeOnComplete: true, removeOnFail: 100 },
    );
  }
}
