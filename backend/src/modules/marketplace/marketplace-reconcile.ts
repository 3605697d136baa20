import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobQueue } from '../jobs/job-queue';
import { RedemptionActivityRepository } from '../redemption/redemption-activity.repository';
import { MarketplaceLinks } from './marketplace-links';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import { SEND_MARKETPLACE_REPORT } from './marketplace.jobs';

/** How far back the first sweep of a process looks. */
const FIRST_WINDOW_MS = 3_600_000;
/** Redemptions read per sweep and connection, at most. */
const SWEEP_LIMIT = 5_000;

/**
 * The report outbox's safety net: the row of a redemption is written once the redemption committed (the listener,
 * after-commit); a process that dies in between leaves none. Each sweep reads the connected products' redemptions
 * since the previous sweep (less the sweep's grace, MAIL_SWEEP_AFTER_MS) and writes the rows that are missing (one per
 * redemption id, so a row that exists is left as it is), queueing them.
 */
@Injectable()
export class MarketplaceReconcile {
  private readonly logger = new Logger(MarketplaceReconcile.name);
  private sweptUntil?: number;

  constructor(
    private readonly links: MarketplaceLinks,
    private readonly redemptions: RedemptionActivityRepository,
    private readonly reports: MarketplaceReportRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async sweep(): Promise<number> {
    const now = this.clock.now().getTime();
    const since = new Date((this.sweptUntil ?? now - FIRST_WINDOW_MS) - this.config.mailSweepAfterMs);
    let written = 0;
    for (const [connectionId, links] of this.links.reportingByConnection()) {
      const byProduct = new Map(links.map((l) => [l.productId, l.externalRef]));
      const from = new Date(Math.max(since.getTime(), new Date(links[0].createdAt).getTime()));
      const rows = await this.redemptions.redeemedSince([...byProduct.keys()], from, SWEEP_LIMIT);
      for (const r of rows) {
        const id = await this.reports.insert({
          connectionId,
          kind: 'redemption',
          redemptionId: r.id,
          code: r.code,
          externalRef: byProduct.get(r.productId)!,
          redeemedAt: r.redeemedAt,
        });
        if (!id) continue;
        written++;
        this.jobs.add(SEND_MARKETPLACE_REPORT, { reportId: id, attempt: 0 });
      }
    }
    this.sweptUntil = now;
    if (written) this.logger.log(`Wrote ${written} missing marketplace report(s)`);
    return written;
  }
}
