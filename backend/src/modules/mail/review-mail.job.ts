import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { AdminUserRepository } from '../auth/admin-user.repository';
import { JobRun } from '../jobs/job';
import { JobQueue } from '../jobs/job-queue';
import { JobRegistry } from '../jobs/job-registry';
import { OverdueReview, RedemptionReviewRepository } from '../redemption/redemption-review.repository';
import {
  REVIEW_ALERT_AFTER_MS,
  REVIEW_ALERTS,
  REVIEW_REFUSAL_MAIL,
  SWEEP_REVIEW_REFUSALS,
} from '../redemption/review-mail';
import { riskRefusedMessage } from '../redemption/risk-refusal';
import { EmailLogRepository } from './email-log.repository';
import { MailTransportService } from './mail-transport.service';
import { mailJobPolicy } from './mail.jobs';
import { DeliveryOutcome, RetryableMailError } from './redemption-mail.service';
import { escapeHtml, htmlToText } from './template';

/** How often the held cases are checked for the two-hour alert. */
export const REVIEW_ALERT_CHECK_MS = 5 * 60 * 1000;

/**
 * The review's e-mails (docs/product.md §25.3, §25.4): the refusal to the customer (the order e-mail's retry policy,
 * on the mail queue; every attempt in `email_logs`; its row's `review_mail_status` the outbox, with a sweep), and the check that alerts the active admins once per case held
 * longer than two hours: the cases are claimed first (one UPDATE), so a case is alerted once however many processes
 * check; an alert no admin could be sent is unclaimed and goes with the next check.
 */
@Injectable()
export class ReviewMailJob implements OnModuleInit {
  private readonly logger = new Logger('ReviewMailJob');

  constructor(
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly reviews: RedemptionReviewRepository,
    private readonly users: AdminUserRepository,
    private readonly transport: MailTransportService,
    private readonly emailLogs: EmailLogRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(REVIEW_REFUSAL_MAIL, {
      ...mailJobPolicy(this.config),
      jobId: ({ redemptionId }) => redemptionId,
      handle: ({ redemptionId }, run) => this.sendRefusal(redemptionId, run),
    });
    this.jobs.register(SWEEP_REVIEW_REFUSALS, { handle: () => this.sweepRefusals() });
    this.jobs.schedule(SWEEP_REVIEW_REFUSALS, this.config.mailSweepIntervalMs, {});
    this.jobs.register(REVIEW_ALERTS, { handle: () => this.alertOverdue() });
    this.jobs.schedule(REVIEW_ALERTS, REVIEW_ALERT_CHECK_MS, {});
  }

  /** One send of a refusal e-mail; throws RetryableMailError while attempts remain. */
  async sendRefusal(redemptionId: string, run: JobRun): Promise<DeliveryOutcome> {
    const mail = await this.reviews.refusalMail(redemptionId);
    if (!mail) return 'skipped';
    const subject = `Your redemption of ${mail.productName}`;
    const html =
      `<p>Your redemption of <strong>${escapeHtml(mail.productName)}</strong> with the voucher code ` +
      `${escapeHtml(mail.voucherCode)} was reviewed.</p>` +
      `<p>${escapeHtml(riskRefusedMessage(this.config.supportEmail))}</p>`;
    const attempts = await this.transport.send({ to: mail.customerEmail, subject, html, text: htmlToText(html) });
    await this.emailLogs.logAttempts(redemptionId, mail.customerEmail, subject, attempts);
    if (attempts.some((a) => a.ok)) {
      await this.reviews.finishRefusalMail(redemptionId, 'sent');
      return 'sent';
    }
    if (run.attempt >= run.attempts) {
      await this.reviews.finishRefusalMail(redemptionId, 'failed');
      this.logger.error(`Refusal e-mail of redemption ${redemptionId} failed after ${run.attempt} attempts`);
      return 'failed';
    }
    throw new RetryableMailError(attempts.map((a) => `${a.provider}: ${a.error}`).join('; '));
  }

  /** Refusal e-mails pending with no live job: queued again. */
  async sweepRefusals(): Promise<number> {
    const ids = await this.reviews.stalePendingRefusals(this.config.mailSweepAfterMs);
    for (const redemptionId of ids) this.queue.add(REVIEW_REFUSAL_MAIL, { redemptionId });
    if (ids.length) this.logger.log(`Re-queued ${ids.length} refusal e-mail(s)`);
    return ids.length;
  }

  /** Alerts the admins of the cases newly past two hours; answers how many cases were alerted. */
  async alertOverdue(): Promise<number> {
    const heldBefore = new Date(this.clock.now().getTime() - REVIEW_ALERT_AFTER_MS);
    const cases = await this.reviews.claimOverdue(heldBefore);
    if (!cases.length) return 0;
    const { subject, html } = alertMail(cases);
    let delivered = false;
    for (const admin of await this.users.activeAdminRecipients()) {
      const attempts = await this.transport.send({ to: admin.email, subject, html, text: htmlToText(html) });
      await this.emailLogs.logAttempts(null, admin.email, subject, attempts);
      delivered ||= attempts.some((a) => a.ok);
    }
    if (!delivered) {
      await this.reviews.unclaimOverdue(cases.map((c) => c.id));
      this.logger.error(`The review alert of ${cases.length} case(s) reached no admin; it goes with the next check`);
      return 0;
    }
    this.logger.warn(`${cases.length} redemption(s) held for review longer than 2 hours`);
    return cases.length;
  }
}

function alertMail(cases: OverdueReview[]): { subject: string; html: string } {
  const subject = `Held for review longer than 2 hours: ${cases.length} ${cases.length === 1 ? 'redemption' : 'redemptions'}`;
  const rows = cases
    .map(
      (c) =>
        `<li>${escapeHtml(c.voucherCode)}: ${escapeHtml(c.productName)}, ${escapeHtml(c.customerEmail)}, held since ` +
        `${escapeHtml(c.heldAt.toISOString())}</li>`,
    )
    .join('');
  const html =
    `<p>These redemptions wait for a decision longer than the 2 hours the customer was promised:</p><ul>${rows}</ul>` +
    `<p>Approve or refuse them in the Review tab of the admin console.</p>`;
  return { subject, html };
}
