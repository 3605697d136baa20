import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobQueue } from './job-queue';
import { JOB, QUEUE } from './jobs.constants';

@Injectable()
export class BullJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('BullJobs');

  constructor(
    @InjectQueue(QUEUE.MAIL) private readonly mailQueue: Queue,
    @InjectQueue(QUEUE.MAINTENANCE) private readonly maintenanceQueue: Queue,
    @InjectQueue(QUEUE.WEBHOOK) private readonly webhookQueue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    super();
    // Without a listener an 'error' event (Redis down) would crash the process.
    for (const queue of [mailQueue, maintenanceQueue, webhookQueue]) {
      queue.on('error', (err) => this.logger.warn(`Queue ${queue.name}: ${err.message}`));
    }
  }

  enqueueRedemptionMail(redemptionId: string): void {
    // One live job per redemption; a finished job is removed, so a resend can queue again.
    this.addMail(JOB.SEND_REDEMPTION_MAIL, { redemptionId }, `mail:${redemptionId}`);
  }

  enqueuePoolAlert(alertId: string): void {
    this.addMail(JOB.SEND_POOL_ALERT, { alertId }, `pool-alert:${alertId}`);
  }

  enqueueCustomerLink(linkId: string): void {
    this.addMail(JOB.SEND_CUSTOMER_LINK, { linkId }, `customer-link:${linkId}`);
  }

  enqueuePoolCheck(productId: string | null): void {
    this.maintenanceQueue
      .add(JOB.CHECK_POOL, { productId }, { removeOnComplete: true, removeOnFail: 100 })
      .catch((err) => this.logger.warn(`Could not queue the pool check (the daily one will run): ${err.message}`));
  }

  private addMail(name: string, data: Record<string, string>, jobId: string): void {
    this.mailQueue
      .add(name, data, {
        jobId,
        attempts: this.config.mailAttempts,
        backoff: { type: 'exponential', delay: this.config.mailBackoffMs },
        removeOnComplete: true,
        removeOnFail: 1000,
      })
      .catch((err) => this.logger.warn(`Could not queue ${jobId} (the sweep will): ${err.message}`));
  }

  onApplicationShutdown(): void {
    this.stopPoolChecks();
  }

  async pendingMailJobs(): Promise<number> {
    const counts = await this.mailQueue.getJobCounts();
    return counts.waiting + counts.active + counts.delayed;
  }

  enqueueWebhookDelivery(deliveryId: string, attempt: number, delayMs: number): void {
    this.webhookQueue
      .add(
        JOB.DELIVER_WEBHOOK,
        { deliveryId },
        // Retries are the handler's (it records each attempt and queues the next with its backoff): one Bull attempt.
        {
          jobId: `webhook:${deliveryId}:${attempt}`,
          delay: Math.max(0, delayMs),
          removeOnComplete: true,
          removeOnFail: 1000,
        },
      )
      .catch((err) =>
        this.logger.warn(`Could not queue webhook delivery ${deliveryId} (the sweep will): ${err.message}`),
      );
  }

  async pendingWebhookJobs(): Promise<number> {
    const counts = await this.webhookQueue.getJobCounts();
    return counts.waiting + counts.active + counts.delayed;
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
    this.maintenanceQueue
      .add(
        JOB.SWEEP_WEBHOOKS,
        {},
        { repeat: { every: this.config.mailSweepIntervalMs }, removeOnComplete: true, removeOnFail: 100 },
      )
      .catch((err) => this.logger.warn(`Could not schedule the webhook sweep: ${err.message}`));
    this.scheduleDaily(JOB.RETENTION_CLEANUP, this.config.retentionIntervalMs, {}).catch((err) =>
      this.logger.warn(`Could not schedule the retention job: ${err.message}`),
    );
    this.scheduleDaily(JOB.CHECK_POOL, this.config.poolCheckIntervalMs, { productId: null }).catch((err) =>
      this.logger.warn(`Could not schedule the pool check: ${err.message}`),
    );
  }

  /**
   * A daily job (retention, the pool check); a schedule of it left by an earlier interval setting is removed, or
   * both would run.
   */
  private async scheduleDaily(name: string, every: number, data: object): Promise<void> {
    for (const job of await this.maintenanceQueue.getRepeatableJobs()) {
      if (job.name === name && Number(job.every) !== every) {
        await this.maintenanceQueue.removeRepeatableByKey(job.key);
      }
    }
    await this.maintenanceQueue.add(name, data, { repeat: { every }, removeOnComplete: true, removeOnFail: 100 });
  }
}
