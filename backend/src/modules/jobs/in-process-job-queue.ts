import { Inject, Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobHandlers } from './job-handlers.service';
import { JobQueue } from './job-queue';

/**
 * Runs jobs inside the API process when no Redis is configured: the same handlers, the same attempts
 * and exponential backoff as Bull. Jobs waiting for a retry are lost on shutdown; the sweep finds them
 * again on the next start because their redemption is still pending.
 */
type MailSend = (attempt: number, maxAttempts: number) => Promise<unknown>;

@Injectable()
export class InProcessJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InProcessJobs');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly queued = new Set<string>();
  private readonly webhooks = new Set<string>();
  private sweepTimer?: NodeJS.Timeout;
  private retentionTimer?: NodeJS.Timeout;
  private poolCheckTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly moduleRef: ModuleRef,
  ) {
    super();
  }

  private get handlers(): JobHandlers {
    return this.moduleRef.get(JobHandlers, { strict: false });
  }

  enqueueRedemptionMail(redemptionId: string): void {
    this.enqueueMail(`mail:${redemptionId}`, (attempt, max) =>
      this.handlers.sendRedemptionMail(redemptionId, attempt, max),
    );
  }

  enqueuePoolAlert(alertId: string): void {
    this.enqueueMail(`pool-alert:${alertId}`, (attempt, max) => this.handlers.sendPoolAlert(alertId, attempt, max));
  }

  enqueueCustomerLink(linkId: string): void {
    this.enqueueMail(`customer-link:${linkId}`, (attempt, max) => this.handlers.sendCustomerLink(linkId, attempt, max));
  }

  enqueuePoolCheck(productId: string | null): void {
    this.schedule(0, () => this.handlers.checkPool(productId));
  }

  /** Like a Bull jobId: one live job per key. */
  private enqueueMail(key: string, send: MailSend): void {
    if (this.queued.has(key) || this.stopped) return;
    this.queued.add(key);
    this.schedule(0, () => this.attemptMail(key, send, 1));
  }

  pendingMailJobs(): Promise<number> {
    // A redemption stays here from its enqueue until its job has sent or given up.
    return Promise.resolve(this.queued.size);
  }

  enqueueWebhookDelivery(deliveryId: string, _attempt: number, delayMs: number): void {
    // One live job per delivery; it leaves the set when it starts, so the retry it schedules is queued.
    if (this.webhooks.has(deliveryId) || this.stopped) return;
    this.webhooks.add(deliveryId);
    this.schedule(Math.max(0, delayMs), () => {
      this.webhooks.delete(deliveryId);
      return this.handlers.deliverWebhook(deliveryId);
    });
  }

  pendingWebhookJobs(): Promise<number> {
    return Promise.resolve(this.webhooks.size);
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => {
      this.track(this.handlers.sweepPendingMail());
      this.track(this.handlers.sweepWebhooks());
    }, this.config.mailSweepIntervalMs);
    this.sweepTimer.unref();
    // Pick up what a previous run left pending.
    this.schedule(0, () => this.handlers.sweepPendingMail());
    this.schedule(0, () => this.handlers.sweepWebhooks());
    // Daily retention; also once at start, so a process restarted more often than daily still runs it.
    this.retentionTimer = setInterval(() => this.track(this.handlers.runRetention()), this.config.retentionIntervalMs);
    this.retentionTimer.unref();
    this.schedule(0, () => this.handlers.runRetention());
    // The daily pool check; at start too, for the same reason.
    this.poolCheckTimer = setInterval(() => this.track(this.handlers.checkPool(null)), this.config.poolCheckIntervalMs);
    this.poolCheckTimer.unref();
    this.schedule(0, () => this.handlers.checkPool(null));
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    if (this.poolCheckTimer) clearInterval(this.poolCheckTimer);
    this.stopPoolChecks();
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private async attemptMail(key: string, send: MailSend, attempt: number): Promise<void> {
    const max = this.config.mailAttempts;
    try {
      await send(attempt, max);
      this.queued.delete(key);
    } catch (err) {
      if (attempt >= max || this.stopped) {
        this.queued.delete(key);
        this.logger.error(`E-mail job ${key} gave up: ${err instanceof Error ? err.message : err}`);
        return;
      }
      const delay = this.config.mailBackoffMs * 2 ** (attempt - 1);
      this.schedule(delay, () => this.attemptMail(key, send, attempt + 1));
    }
  }

  private schedule(delayMs: number, work: () => Promise<unknown>): void {
    if (this.stopped) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(work());
    }, delayMs);
    this.timers.add(timer);
  }

  private track(promise: Promise<unknown>): void {
    const tracked = promise
      .catch((err) => this.logger.error(err instanceof Error ? err.message : String(err)))
      .finally(() => this.running.delete(tracked));
    this.running.add(tracked);
  }
}
