import { BeforeApplicationShutdown, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { DomainEventMap as Events } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { JobQueue } from '../jobs/job-queue';
import { MarketplaceCheckService } from './marketplace-check.service';
import { MarketplaceLinks } from './marketplace-links';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import type { ProductLink } from './marketplace.repository';
import { SEND_MARKETPLACE_REPORT } from './marketplace.jobs';

/**
 * Redemptions and refunds of connected products, once committed, into the report outbox (docs/product.md §24.7); a
 * product without a connection costs a Map lookup. The rows are the state: a job that cannot be queued is found by the
 * sweep.
 */
@Injectable()
export class MarketplaceListener implements BeforeApplicationShutdown {
  private readonly logger = new Logger(MarketplaceListener.name);
  /** Report rows being written after their redemption's answer left; a shutdown waits for them. */
  private readonly writing = new Set<Promise<void>>();

  constructor(
    private readonly links: MarketplaceLinks,
    private readonly reports: MarketplaceReportRepository,
    private readonly check: MarketplaceCheckService,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
  ) {}

  /**
   * Not awaited: the customer's answer does not wait for the outbox row (1–5 ms at 200 redemptions/s,
   * docs/benchmarks.md "Live check at redeem"). A row this process does not write (it died, or the write failed) is
   * written by the reconcile sweep, as before.
   */
  @OnDomainEvent('redemption.created', 'after-commit')
  redeemed(e: Events['redemption.created']): void {
    const link = this.links.of(e.productId);
    if (!link) return;
    const write = this.writeReports(e, link)
      .catch((err: unknown) => {
        this.logger.warn(`Report row of ${e.redemptionId} not written (the sweep writes it): ${String(err)}`);
      })
      .finally(() => this.writing.delete(write));
    this.writing.add(write);
  }

  async beforeApplicationShutdown(): Promise<void> {
    await Promise.all(this.writing);
  }

  private async writeReports(e: Events['redemption.created'], link: ProductLink): Promise<void> {
    const row = {
      connectionId: link.connectionId,
      redemptionId: e.redemptionId,
      code: e.voucherCode,
      externalRef: link.externalRef,
      redeemedAt: this.clock.now(),
    };
    if (link.reportRedemptions) this.queue(await this.reports.insert({ ...row, kind: 'redemption' }));
    if (this.check.takeUnconfirmed(e.voucherCode)) this.queue(await this.reports.insert({ ...row, kind: 'recheck' }));
  }

  /**
   * A refund made here (a void) of redemptions the marketplace was told of: it is told of the refund too, for every
   * code the void refunded (not the void's audit, which names at most 1,000).
   */
  @OnDomainEvent('vouchers.refunded', 'after-commit')
  async refunded({ productId, codes }: Events['vouchers.refunded']): Promise<void> {
    const link = this.links.of(productId);
    if (!link?.reportRedemptions || !codes.length) return;
    const refunded = codes.map((c) => c.code);
    for (const id of await this.reports.insertRefunds(link.connectionId, refunded, 'pending')) {
      this.queue(id);
    }
  }

  private queue(reportId: string | undefined): void {
    if (reportId) this.jobs.add(SEND_MARKETPLACE_REPORT, { reportId, attempt: 0 });
  }
}
