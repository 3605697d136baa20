import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { VoucherVoidService } from '../voucher/voucher-void.service';
import { claimSecondsFor } from '../webhook/webhook-http';
import { adapterFor } from './marketplace-adapters';
import { MarketplaceCheckService } from './marketplace-check.service';
import { ClaimedReport, MarketplaceReportRepository } from './marketplace-report.repository';
import { MarketplaceRepository } from './marketplace.repository';
import { SEND_MARKETPLACE_REPORT } from './marketplace.jobs';

export type ReportOutcome = 'acked' | 'retry' | 'dead' | 'skipped';

/**
 * Sends one report of the outbox (the job's work): claims the row, makes the call (POST /redemptions with the
 * redemption id as Idempotency-Key, POST /refunds, or the re-check of a code accepted while its marketplace was
 * unreachable), and records the outcome. A failure queues the next attempt itself, the delay doubling from
 * MARKETPLACE_BACKOFF_MS, until MARKETPLACE_RETRY_HOURS after the row was written: then it is dead (listed, retryable,
 * the `marketplace.report.dead` webhook). Nothing here throws to the queue: the row is the state.
 */
@Injectable()
export class MarketplaceReportService {
  private readonly logger = new Logger(MarketplaceReportService.name);

  constructor(
    private readonly reports: MarketplaceReportRepository,
    private readonly connections: MarketplaceRepository,
    private readonly check: MarketplaceCheckService,
    private readonly voids: VoucherVoidService,
    private readonly jobs: JobQueue,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async send(reportId: string): Promise<ReportOutcome> {
    const claimSeconds = claimSecondsFor(this.config.marketplaceTimeoutMs);
    const row = await this.reports.claim(reportId, claimSeconds);
    if (!row) return 'skipped';
    let error: string | null = null;
    try {
      await this.attempt(row);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    if (!error) {
      await this.reports.record(row.id, 'acked', null, null);
      return 'acked';
    }
    const now = this.clock.now();
    const next = new Date(now.getTime() + this.config.marketplaceBackoffMs * 2 ** row.attempts);
    const deadAt = new Date(new Date(row.createdAt).getTime() + this.config.marketplaceRetryHours * 3_600_000);
    if (next > deadAt) {
      await this.reports.record(row.id, 'dead', error, null);
      this.logger.warn(`Marketplace ${row.kind} report ${row.id} is dead after ${row.attempts + 1} attempts: ${error}`);
      await this.events.publish('marketplace.report.dead', {
        connectionId: row.connectionId,
        reportId: row.id,
        kind: row.kind,
        redemptionId: row.redemptionId,
        code: row.code,
        attempts: row.attempts + 1,
        lastError: error,
      });
      return 'dead';
    }
    const attempts = await this.reports.record(row.id, 'pending', error, next);
    this.jobs.add(
      SEND_MARKETPLACE_REPORT,
      { reportId: row.id, attempt: attempts },
      { delayMs: next.getTime() - now.getTime() },
    );
    return 'retry';
  }

  private async attempt(row: ClaimedReport): Promise<void> {
    const call = this.check.callOf(row);
    const report = {
      redemptionId: row.redemptionId,
      code: row.code,
      externalRef: row.externalRef,
      redeemedAt: row.redeemedAt,
    };
    const adapter = adapterFor(row.adapter);
    if (row.kind === 'redemption') return adapter.report(call, report);
    if (row.kind === 'refund') return adapter.reportRefund(call, report);
    // The re-check of a code redeemed while its marketplace was unreachable: refunded since → the refund flow.
    const status = await adapter.check(call, row.code, row.externalRef);
    if (status !== 'refunded' && status !== 'cancelled') return;
    const productId = await this.connections.productFor(row.connectionId, row.externalRef);
    if (!productId) return;
    await this.reports.insertRefunds(row.connectionId, [row.code], 'acked');
    await this.voids.voidList(productId, [row.code], {
      adminUserId: null,
      ipAddress: null,
      userAgent: `marketplace ${row.connectionId} (re-check)`,
    });
  }

  /** Re-queues pending reports whose job was lost (Redis emptied, a worker killed). */
  async sweep(graceMs: number, limit = 500): Promise<number> {
    const stale = await this.reports.findStale(new Date(this.clock.now().getTime() - graceMs), limit);
    for (const { id, attempts } of stale) this.jobs.add(SEND_MARKETPLACE_REPORT, { reportId: id, attempt: attempts });
    if (stale.length) this.logger.log(`Re-queued ${stale.length} marketplace report(s)`);
    return stale.length;
  }
}
