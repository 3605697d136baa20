import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { dayIn } from '../../common/utils/day';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AdminUserRepository } from '../auth/admin-user.repository';
import { JobQueue } from '../jobs/job-queue';
import { EmailLogRepository } from '../mail/email-log.repository';
import { MailTransportService } from '../mail/mail-transport.service';
import { DeliveryOutcome, RetryableMailError } from '../mail/redemption-mail.service';
import { escapeHtml, htmlToText } from '../mail/template';
import { ClaimedPoolAlert, PoolAlertRepository } from './pool-alert.repository';
import { PoolForecast, PoolForecastService } from './pool-forecast.service';
import { SEND_POOL_ALERT } from './pool.jobs';
import { DomainEvents } from '../../events/domain-events.service';

/**
 * docs/product.md §20.2 low-pool alerts. A check (the daily job, or a redemption that used a pool key) forecasts the
 * products; each low one gets one `pool_alerts` row per active admin with an e-mail and day (the outbox), and a
 * job per row sends it (primary, then fallback provider; every attempt in `email_logs`), exactly like the order
 * e-mail: committed rows first, jobs after, the sweep for jobs that were lost.
 */
@Injectable()
export class PoolAlertService {
  private readonly logger = new Logger(PoolAlertService.name);

  constructor(
    private readonly forecasts: PoolForecastService,
    private readonly alerts: PoolAlertRepository,
    private readonly users: AdminUserRepository,
    private readonly transport: MailTransportService,
    private readonly emailLogs: EmailLogRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: DomainEvents,
  ) {}

  /** Checks every licence-managed product, or the one given; answers the alerts queued. */
  async check(productId: string | null = null): Promise<number> {
    const low = (await this.forecasts.forecast(productId ? [productId] : undefined)).filter((f) => f.low);
    if (!low.length) return 0;
    const recipients = await this.users.activeAdminRecipients();
    const alertDay = this.today();
    let queued = 0;
    for (const forecast of low) {
      const ids = await this.alerts.insertForRecipients({ ...forecast, alertDay }, recipients);
      for (const id of ids) this.jobs.add(SEND_POOL_ALERT, { alertId: id });
      queued += ids.length;
      if (ids.length) {
        this.logger.warn(`Licence pool of ${forecast.productName} is low: ${describe(forecast)}`);
        this.onPoolLow(forecast);
      }
    }
    return queued;
  }

  /**
   * The one place a product's pool is reported low, once per product per day (when its first alert of the day is
   * written): the `pool.low` webhook event (docs/product.md §20.4).
   */
  onPoolLow(forecast: PoolForecast): void {
    const { productId, productName, availableActivations, redeemedLast7Days, perDay, daysLeft } = forecast;
    void this.events.publish('pool.low', {
      productId,
      productName,
      availableActivations,
      redeemedLast7Days,
      perDay,
      daysLeft,
    });
  }

  /** One send of one alert; throws RetryableMailError while attempts remain, so the queue retries with backoff. */
  async deliver(alertId: string, attempt: number, maxAttempts: number): Promise<DeliveryOutcome> {
    const alert = await this.alerts.claim(alertId, this.config.mailClaimSeconds);
    if (!alert) return 'skipped';
    const { subject, html } = alertMail(alert);
    const attempts = await this.transport.send({ to: alert.recipient, subject, html, text: htmlToText(html) });
    await this.emailLogs.logAttempts(null, alert.recipient, subject, attempts);
    const delivered = attempts.some((a) => a.ok);
    const last = attempt >= maxAttempts;
    await this.alerts.finish(alertId, delivered ? 'sent' : last ? 'failed' : 'pending');
    if (delivered) return 'sent';
    if (last) {
      this.logger.error(`Pool alert ${alertId} to ${alert.recipient} failed after ${attempt} attempts`);
      return 'failed';
    }
    throw new RetryableMailError(attempts.map((a) => `${a.provider}: ${a.error}`).join('; '));
  }

  /** Pending alerts whose job was lost (Redis down, a worker died). */
  findStalePending(olderThanMs: number, limit = 500): Promise<string[]> {
    return this.alerts.findStalePending(olderThanMs, limit);
  }

  /** YYYY-MM-DD of the Clock's now in the service's time zone: the day an alert counts for. */
  private today(): string {
    return dayIn(this.config.timeZone, this.clock.now());
  }
}

function describe(f: Pick<PoolForecast, 'availableActivations' | 'redeemedLast7Days' | 'daysLeft'>): string {
  const days = f.daysLeft === null ? 'no redemptions in the last 7 days' : `≈ ${f.daysLeft} days of keys left`;
  return `${f.availableActivations} activations available, ${f.redeemedLast7Days} redeemed in the last 7 days (${days})`;
}

/** "3 customers waiting for a key" (the product card says the same). */
export function waitingText(n: number): string {
  return `${n} ${n === 1 ? 'customer' : 'customers'} waiting for a key`;
}

function alertMail(alert: ClaimedPoolAlert): { subject: string; html: string } {
  const subject = `Licence pool low: ${alert.productName}`;
  const html =
    `<p>The licence pool of <strong>${escapeHtml(alert.productName)}</strong> is running low: ` +
    `${escapeHtml(describe(alert))}.</p>` +
    (alert.waitingCustomers ? `<p>${escapeHtml(waitingText(alert.waitingCustomers))}.</p>` : '') +
    `<p>Add keys in the License Manager so redemptions do not wait for manual processing.</p>`;
  return { subject, html };
}
