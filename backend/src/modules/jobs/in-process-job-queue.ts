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
@Injectable()
export class InProcessJobQueue extends JobQueue implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger('InProcessJobs');
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private readonly queued = new Set<string>();
  private sweepTimer?: NodeJS.Timeout;
  private retentionTimer?: NodeJS.Timeout;
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
    // Like a Bull jobId: one live job per redemption.
    if (this.queued.has(redemptionId) || this.stopped) return;
    this.queued.add(redemptionId);
    this.schedule(0, () => this.attemptMail(redemptionId, 1));
  }

  onApplicationBootstrap(): void {
    this.sweepTimer = setInterval(() => this.track(this.handlers.sweepPendingMail()), this.config.mailSweepIntervalMs);
    this.sweepTimer.unref();
    // Pick up what a previous run left pending.
    this.schedule(0, () => this.handlers.sweepPendingMail());
    // Daily retention; also once at start, so a process restarted more often than daily still runs it.
    this.retentionTimer = setInterval(() => this.track(this.handlers.runRetention()), this.config.retentionIntervalMs);
    this.retentionTimer.unref();
    this.schedule(0, () => this.handlers.runRetention());
  }

  async onApplicationShutdown(): Promise<void> {
    this.stopped = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    if (this.retentionTimer) clearInterval(this.retentionTimer);
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.running]);
  }

  private async attemptMail(redemptionId: string, attempt: number): Promise<void> {
    const max = this.config.mailAttempts;
    try {
      await this.handlers.sendRedemptionMail(redemptionId, attempt, max);
      this.queued.delete(redemptionId);
    } catch (err) {
      if (attempt >= max || this.stopped) {
        this.queued.delete(redemptionId);
        this.logger.error(`E-mail job for ${redemptionId} gave up: ${err instanceof Error ? err.message : err}`);
        return;
      }
      const delay = this.config.mailBackoffMs * 2 ** (attempt - 1);
      this.schedule(delay, () => this.attemptMail(redemptionId, attempt + 1));
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
