import { Injectable, OnModuleInit } from '@nestjs/common';
import { Gauge } from 'prom-client';
import { AppMetrics } from '../../common/metrics';
import { DatabaseService } from '../../database/database.service';
import { JobQueue } from '../jobs/job-queue';
import { MAIL_QUEUE } from '../mail/mail.jobs';
import { WEBHOOK_QUEUE } from '../webhook/webhook.jobs';
import { LicenseRepository } from '../license/license.repository';
import { EmailLogRepository } from '../mail/email-log.repository';
import { StatsRepository } from '../stats/stats.repository';
import { RedemptionReviewRepository } from '../redemption/redemption-review.repository';

/** The window of `email_sends_recent`: recent enough to alert on, one index range to count. */
const EMAIL_WINDOW_MINUTES = 60;

/**
 * The series read at scrape time (docs/operations.md): each gauge's `collect` asks the owner of the data, with
 * index-backed queries only (no full scan on a scrape): free pool keys, recent e-mail sends, the order e-mail
 * backlog, the job queues' depth and the database pool.
 */
@Injectable()
export class MetricsService implements OnModuleInit {
  constructor(
    private readonly metrics: AppMetrics,
    private readonly licenses: LicenseRepository,
    private readonly emailLogs: EmailLogRepository,
    private readonly stats: StatsRepository,
    private readonly jobs: JobQueue,
    private readonly database: DatabaseService,
    private readonly reviews: RedemptionReviewRepository,
  ) {}

  onModuleInit(): void {
    const registers = [this.metrics.registry];
    const { licenses, emailLogs, stats, jobs, database, reviews } = this;
    new Gauge({
      name: 'redemptions_held',
      help: 'Redemptions a risk rule held, waiting for staff to approve or refuse them',
      registers,
      async collect() {
        this.set(await reviews.heldCount());
      },
    });
    new Gauge({
      name: 'voucher_pool_available_activations',
      help: 'Activations left on active pool keys, per licence-managed product',
      labelNames: ['product_id', 'product'] as const,
      registers,
      async collect() {
        this.reset();
        for (const p of await licenses.availableActivationsByProduct()) {
          this.set({ product_id: p.productId, product: p.productName }, p.available);
        }
      },
    });
    new Gauge({
      name: 'email_sends_recent',
      help: `E-mail send attempts in the last ${EMAIL_WINDOW_MINUTES} minutes, by provider and status`,
      labelNames: ['provider', 'status'] as const,
      registers,
      async collect() {
        this.reset();
        for (const r of await emailLogs.recentCounts(EMAIL_WINDOW_MINUTES)) {
          this.set({ provider: r.provider, status: r.status }, r.n);
        }
      },
    });
    new Gauge({
      name: 'order_emails',
      help: 'Order e-mails waiting to be sent (pending) and given up after every attempt (failed)',
      labelNames: ['status'] as const,
      registers,
      async collect() {
        const backlog = await stats.orderEmailBacklog();
        this.set({ status: 'pending' }, backlog.pending);
        this.set({ status: 'failed' }, backlog.failed);
      },
    });
    new Gauge({
      name: 'job_queue_depth',
      help: 'Jobs queued, running or waiting for a retry, per queue',
      labelNames: ['queue'] as const,
      registers,
      async collect() {
        const [mail, webhook] = await Promise.all([jobs.pending(MAIL_QUEUE), jobs.pending(WEBHOOK_QUEUE)]);
        this.set({ queue: MAIL_QUEUE }, mail);
        this.set({ queue: WEBHOOK_QUEUE }, webhook);
      },
    });
    new Gauge({
      name: 'db_pool_connections',
      help: "Connections of the API process's PostgreSQL pool: in use, idle, and requests waiting for one",
      labelNames: ['state'] as const,
      registers,
      collect() {
        const pool = database.pool;
        this.set({ state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.set({ state: 'idle' }, pool.idleCount);
        this.set({ state: 'waiting' }, pool.waitingCount);
      },
    });
  }

  /** The Prometheus text exposition of everything registered. */
  async scrape(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.metrics.registry.contentType, body: await this.metrics.registry.metrics() };
  }
}
