import { Injectable } from '@nestjs/common';
import { Counter, Gauge, Histogram } from 'prom-client';
import { AppMetrics } from '../../common/metrics';
import { MarketplaceReportRepository } from './marketplace-report.repository';

/** The series of docs/product.md §24.11 on the app's registry (GET /metrics, docs/operations.md). */
@Injectable()
export class MarketplaceMetrics {
  readonly checkSeconds: Histogram<'status'>;
  readonly events: Counter<'type'>;

  constructor(metrics: AppMetrics, reports: MarketplaceReportRepository) {
    const registers = [metrics.registry];
    this.checkSeconds = new Histogram({
      name: 'marketplace_check_seconds',
      help: "The live check at redeem: the marketplace's answer time, by answer (unreachable: none in time)",
      labelNames: ['status'] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 1.5, 2.5, 5],
      registers,
    });
    this.events = new Counter({
      name: 'marketplace_events_total',
      help: 'Inbound marketplace events applied (pushed or pulled), by type',
      labelNames: ['type'] as const,
      registers,
    });
    new Gauge({
      name: 'marketplace_reports_pending',
      help: 'Redemption and refund reports waiting to be acknowledged by their marketplace',
      registers,
      async collect() {
        this.set(await reports.countPending());
      },
    });
  }
}
