import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobRegistry } from '../jobs/job-registry';
import { MarketplacePullService } from './marketplace-pull.service';
import { MarketplaceReconcile } from './marketplace-reconcile';
import { MarketplaceReportService } from './marketplace-report.service';
import { MARKETPLACE_QUEUE, SEND_MARKETPLACE_REPORT, SWEEP_MARKETPLACE_REPORTS } from './marketplace.jobs';

/** How often each job process looks for connections whose pull is due (one small statement). */
const PULL_POLL_MS = 1_000;

/**
 * The marketplace jobs: one report attempt per job (the retries are the handler's), the sweep of reports whose job
 * was lost, and the pull poll of every process that runs jobs.
 */
@Injectable()
export class MarketplaceJobs implements OnModuleInit {
  constructor(
    private readonly jobs: JobRegistry,
    private readonly reports: MarketplaceReportService,
    private readonly pulls: MarketplacePullService,
    private readonly reconcile: MarketplaceReconcile,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(SEND_MARKETPLACE_REPORT, {
      queue: MARKETPLACE_QUEUE,
      concurrency: 20,
      jobId: ({ reportId, attempt }) => `${reportId}:${attempt}`,
      keepFailed: 1000,
      handle: ({ reportId }) => this.reports.send(reportId),
    });
    this.jobs.register(SWEEP_MARKETPLACE_REPORTS, {
      // Rows whose job was lost, then rows never written (a process that died right after a redemption).
      handle: async () => (await this.reports.sweep(this.config.mailSweepAfterMs)) + (await this.reconcile.sweep()),
    });
    this.jobs.schedule(SWEEP_MARKETPLACE_REPORTS, this.config.mailSweepIntervalMs, {});
    this.jobs.poll({ name: 'marketplace.pull-events', every: PULL_POLL_MS, run: () => this.pulls.pullDue() });
  }
}
