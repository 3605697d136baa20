import { Inject, Injectable, Logger, NotFoundException } from '@nestjs/common';
import { stringify } from 'csv-stringify';
import { Readable, type Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { Clock } from '../../common/clock';
import { dayIn } from '../../common/utils/day';
import { RequestActor } from '../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEvents } from '../../events/domain-events.service';
import { neutraliseCell } from '../export/csv-safety';
import { MARKETPLACE_MESSAGES } from './marketplace-connection.service';
import { MarketplaceReportRepository, ReconciliationRow } from './marketplace-report.repository';
import { MarketplaceRepository } from './marketplace.repository';

/** The file's columns (docs/product.md §24.10). */
const COLUMNS: Array<{ header: string; cell: (r: ReconciliationRow) => unknown }> = [
  { header: 'Redemption ID', cell: (r) => r.redemptionId },
  { header: 'Voucher Code', cell: (r) => r.code },
  { header: 'External Ref', cell: (r) => r.externalRef },
  { header: 'Redeemed At', cell: (r) => r.redeemedAt },
  { header: 'Report Status', cell: (r) => r.status },
  { header: 'Attempts', cell: (r) => r.attempts },
  { header: 'Acked At', cell: (r) => r.ackedAt },
  { header: 'Last Error', cell: (r) => r.lastError },
  { header: 'Refund Report', cell: (r) => r.refundStatus },
];

export const RECONCILIATION_MESSAGES = {
  empty: (day: string) => `No redemptions of this connection were reported on ${day}.`,
  badDay: 'date must be a day as YYYY-MM-DD.',
} as const;

/** Where the file goes, as the controller hands it over (the export module's shape: no HTTP object here). */
export interface ReconciliationOutput {
  open(fileName: string): void;
  body: Writable;
  sent(): boolean;
}

/**
 * The day's redemptions of a connection with their report status, as CSV (docs/product.md §24.10): streamed from a
 * cursor as the rows arrive, like the other exports (BOM, CRLF, formula-looking cells neutralised), audited as
 * `export.marketplace-reconciliation`; no row that day → 404 before any byte; a file that breaks off is destroyed,
 * never ended as a complete one.
 */
@Injectable()
export class MarketplaceReconciliation {
  private readonly logger = new Logger(MarketplaceReconciliation.name);

  constructor(
    private readonly connections: MarketplaceRepository,
    private readonly reports: MarketplaceReportRepository,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async write(connectionId: string, date: string | undefined, out: ReconciliationOutput, actor: RequestActor) {
    const day = date ?? dayIn(this.config.timeZone, this.clock.now());
    const connection = await this.connections.find(connectionId);
    if (!connection) throw new NotFoundException(MARKETPLACE_MESSAGES.notFound);
    const details = { connectionId, day, format: 'csv' };
    let rows = 0;
    const outcome = await this.reports.streamDay(connectionId, day, this.config.timeZone, async (cursor) => {
      const first = await cursor.next();
      if (first.done) return 'empty' as const;
      async function* cells() {
        for (let next = first; !next.done; next = await cursor.next()) {
          rows++;
          yield COLUMNS.map((c) => neutraliseCell(c.cell(next.value)));
        }
      }
      out.open(`marketplace-${connection.name.replace(/[^A-Za-z0-9_-]+/g, '-').slice(0, 40)}-${day}.csv`);
      try {
        await pipeline(
          Readable.from(cells()),
          stringify({ bom: true, header: true, columns: COLUMNS.map((c) => c.header), record_delimiter: 'windows' }),
          out.body,
          { end: false },
        );
      } catch (err) {
        this.logger.warn(
          `Reconciliation file broke off after ${rows} rows: ${err instanceof Error ? err.message : err}`,
        );
        out.body.destroy();
        return 'aborted' as const;
      }
      return 'written' as const;
    });
    try {
      await this.events.publish('export.marketplace-reconciliation', {
        ...actor,
        success: outcome === 'written',
        resource: 'export',
        resourceId: connectionId,
        details: { ...details, rows, ...(outcome !== 'written' && { reason: outcome }) },
      });
    } finally {
      // Audited before the response ends (a client holding the whole file finds it audited); ended even if not.
      if (outcome === 'written') out.body.end();
    }
    if (outcome === 'empty') throw new NotFoundException(RECONCILIATION_MESSAGES.empty(day));
  }
}
