import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { AdminAttemptRepository } from '../auth/admin-attempt.repository';
import { AdminSessionRepository } from '../auth/admin-session.repository';
import { LOGIN_FAILURES_FORGOTTEN_HOURS } from '../auth/login-lockout';
import { UnknownLoginNameRepository } from '../auth/unknown-login-name.repository';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { EmailLogRepository } from '../mail/email-log.repository';
import { RedemptionMailService } from '../mail/redemption-mail.service';
import { PoolAlertService } from '../pool/pool-alert.service';
import { AccessLinkService } from '../customer-centre/access-link.service';
import { RedemptionRetentionRepository } from '../redemption/redemption-retention.repository';
import { StatsRepository } from '../stats/stats.repository';
import { WebhookDeliveryService } from '../webhook/webhook-delivery.service';
import { WebhookRepository } from '../webhook/webhook.repository';
import { JobQueue } from './job-queue';
import { DomainEvents } from '../../events/domain-events.service';

/** The job logic, shared by the Bull processors and the in-process runner. */
@Injectable()
export class JobHandlers {
  private readonly logger = new Logger(JobHandlers.name);

  constructor(
    private readonly redemptionMail: RedemptionMailService,
    private readonly queue: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redemptionRetention: RedemptionRetentionRepository,
    private readonly emailLogs: EmailLogRepository,
    private readonly audit: AuditService,
    private readonly events: DomainEvents,
    private readonly sessions: AdminSessionRepository,
    private readonly attempts: AdminAttemptRepository,
    private readonly unknownLoginNames: UnknownLoginNameRepository,
    private readonly stats: StatsRepository,
    private readonly webhookDeliveries: WebhookDeliveryService,
    private readonly webhooks: WebhookRepository,
    private readonly poolAlerts: PoolAlertService,
    private readonly customerLinks: AccessLinkService,
  ) {}

  deliverWebhook(deliveryId: string) {
    return this.webhookDeliveries.deliver(deliveryId);
  }

  /** Pending webhook deliveries due longer ago than the e-mail sweep's grace, with no live claim: their job was lost. */
  sweepWebhooks(): Promise<number> {
    return this.webhookDeliveries.sweep(this.config.mailSweepAfterMs);
  }

  sendRedemptionMail(redemptionId: string, attempt: number, maxAttempts: number) {
    return this.redemptionMail.deliver(redemptionId, attempt, maxAttempts);
  }

  sendPoolAlert(alertId: string, attempt: number, maxAttempts: number) {
    return this.poolAlerts.deliver(alertId, attempt, maxAttempts);
  }

  sendCustomerLink(linkId: string, attempt: number, maxAttempts: number) {
    return this.customerLinks.deliver(linkId, attempt, maxAttempts);
  }

  /** One product's pool (after a redemption used it) or every licence-managed product's (daily). */
  checkPool(productId: string | null): Promise<number> {
    return this.poolAlerts.check(productId);
  }

  /** Order e-mails, pool alerts and sign-in links that are pending with no live job (lost with Redis, a dead worker). */
  async sweepPendingMail(): Promise<number> {
    const ids = await this.redemptionMail.findStalePending(this.config.mailSweepAfterMs);
    for (const id of ids) this.queue.enqueueRedemptionMail(id);
    const alerts = await this.poolAlerts.findStalePending(this.config.mailSweepAfterMs);
    for (const id of alerts) this.queue.enqueuePoolAlert(id);
    const links = await this.customerLinks.findStalePending(this.config.mailSweepAfterMs);
    for (const id of links) this.queue.enqueueCustomerLink(id);
    if (ids.length || alerts.length || links.length) {
      this.logger.log(
        `Re-queued ${ids.length} pending e-mail(s), ${alerts.length} pool alert(s), ${links.length} sign-in link(s)`,
      );
    }
    return ids.length + alerts.length + links.length;
  }

  /**
   * docs/product.md §1.5 retention: security audit rows (1 year), e-mail logs (2 years) and redemptions (7 years) by
   * default. Deleted in batches so no statement holds locks on a large table for long. A deleted
   * redemption keeps its voucher code redeemed and its licence assignment (redemption_id set null);
   * customers left without any redemption and older than the limit go with it. Admin sessions go 30 days after
   * they ended (with their spent refresh tokens), per-user attempt counters, the sign-in counters of unknown usernames
   * and the licence centre's sign-in links after a day (docs/security.md).
   * Then the redemption day counters of past days are folded (one row per product and day; not a removal).
   */
  async runRetention(): Promise<RetentionResult> {
    const c = this.config;
    const result: RetentionResult = {
      auditLogs: await inBatches((batch) => this.audit.deleteOlderThan(c.auditRetentionDays, batch)),
      emailLogs: await inBatches((batch) => this.emailLogs.deleteOlderThan(c.emailLogRetentionDays, batch)),
      redemptions: await inBatches((batch) =>
        this.redemptionRetention.deleteOlderThan(c.redemptionRetentionDays, batch),
      ),
      customers: await inBatches((batch) =>
        this.redemptionRetention.deleteUnusedCustomers(c.redemptionRetentionDays, batch),
      ),
      adminSessions: await inBatches((batch) => this.sessions.deleteEndedBefore(ENDED_SESSION_DAYS, batch)),
      // Attempt counters: per-user ones, and the sign-in counters of usernames with no account (docs/product.md).
      adminAttempts:
        (await inBatches((batch) => this.attempts.deleteOlderThan(ATTEMPT_HOURS, batch))) +
        (await inBatches((batch) => this.unknownLoginNames.deleteIdleFor(LOGIN_FAILURES_FORGOTTEN_HOURS, batch))),
      webhookDeliveries: await inBatches((batch) => this.webhooks.deleteOlderThan(WEBHOOK_DELIVERY_DAYS, batch)),
      customerAccessLinks: await inBatches((batch) => this.customerLinks.deleteOld(batch)),
    };
    await this.stats.foldPastDays();
    const total = Object.values(result).reduce((a, b) => a + b, 0);
    // A run that removed nothing changed nothing: no audit row (every process start runs it once).
    if (total) {
      this.logger.log(`Retention removed ${JSON.stringify(result)}`);
      await this.events.publish('system.retention', { success: true, resource: 'system', details: { ...result } });
    }
    return result;
  }
}

const RETENTION_BATCH = 5000;
/** Ended admin sessions are kept this long (which device signed in when stays in the audit log for a year). */
const ENDED_SESSION_DAYS = 30;
/** Per-user attempt counters: the longest window they serve is an hour. */
const ATTEMPT_HOURS = 24;
/** Settled webhook deliveries: the log shows the last 20 per endpoint; a month is plenty to investigate. */
const WEBHOOK_DELIVERY_DAYS = 30;

/** Runs one batched delete until a batch comes back short; answers the rows deleted in all. */
async function inBatches(deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteBatch(RETENTION_BATCH);
    deleted += n;
    if (n < RETENTION_BATCH) return deleted;
  }
}

export interface RetentionResult {
  auditLogs: number;
  emailLogs: number;
  redemptions: number;
  customers: number;
  adminSessions: number;
  adminAttempts: number;
  webhookDeliveries: number;
  /** Licence-centre sign-in links a day old (docs/product.md §21). */
  customerAccessLinks: number;
}
