import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobRun } from '../jobs/job';
import { JobQueue } from '../jobs/job-queue';
import { JobRegistry } from '../jobs/job-registry';
import { mailJobPolicy } from '../mail/mail.jobs';
import { PoolAlertService } from './pool-alert.service';
import { CHECK_POOL, SEND_POOL_ALERT, SWEEP_POOL_ALERTS } from './pool.jobs';

/**
 * The pool's jobs (docs/product.md §20.2): the alert e-mails (the order e-mail's retry policy, on the mail queue),
 * their sweep, and the pool check: after a redemption used the pool (`PoolListener`, `PoolChecks`) and daily
 * (POOL_CHECK_INTERVAL_MS; without Redis also at start).
 */
@Injectable()
export class PoolJobs implements OnModuleInit {
  private readonly logger = new Logger('PoolJobs');

  constructor(
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly alerts: PoolAlertService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(SEND_POOL_ALERT, {
      ...mailJobPolicy(this.config),
      jobId: ({ alertId }) => alertId,
      handle: ({ alertId }, run) => this.sendAlert(alertId, run),
    });
    this.jobs.register(SWEEP_POOL_ALERTS, { handle: () => this.sweep() });
    this.jobs.schedule(SWEEP_POOL_ALERTS, this.config.mailSweepIntervalMs, {});
    this.jobs.register(CHECK_POOL, { handle: ({ productId }) => this.check(productId ?? null) });
    this.jobs.schedule(CHECK_POOL, this.config.poolCheckIntervalMs, { productId: null });
  }

  sendAlert(alertId: string, run: JobRun) {
    return this.alerts.deliver(alertId, run.attempt, run.attempts);
  }

  /** One product's pool (after a redemption used it) or every licence-managed product's (daily). */
  check(productId: string | null): Promise<number> {
    return this.alerts.check(productId);
  }

  /** Pool alerts pending with no live job: queued again. */
  async sweep(): Promise<number> {
    const ids = await this.alerts.findStalePending(this.config.mailSweepAfterMs);
    for (const alertId of ids) this.queue.add(SEND_POOL_ALERT, { alertId });
    if (ids.length) this.logger.log(`Re-queued ${ids.length} pool alert(s)`);
    return ids.length;
  }
}
