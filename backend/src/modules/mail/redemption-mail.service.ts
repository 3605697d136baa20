import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { stripManualPrefix } from '../license/entities/license-key.entity';
import { macPackageLinks } from '../redemption/mac-package-links';
import { isMacProduct } from '../redemption/redemption-admin.messages';
import { RedemptionMailOutboxRepository } from '../redemption/redemption-mail-outbox.repository';
import { EmailLogRepository } from './email-log.repository';
import { MailTransportService } from './mail-transport.service';
import { escapeHtml, htmlToText, renderTemplate, TemplateValues } from './template';
import { DomainEvents } from '../../events/domain-events.service';

export type DeliveryOutcome = 'sent' | 'skipped' | 'failed';

export class RetryableMailError extends Error {}

/**
 * The order e-mail's Message-ID: derived from the redemption and its resend number, never random, so a copy sent
 * again after a crash (the SMTP server had accepted it, the status write never happened) is the same message to
 * every mail system; a resend asked for after it was sent is a new one (docs/operations.md "Order e-mail delivery").
 */
export function orderEmailMessageId(redemptionId: string, resends: number, mailFrom: string): string {
  const domain = /@([^\s>]+)>?\s*$/.exec(mailFrom)?.[1] ?? 'localhost';
  return `<redemption-${redemptionId}-${resends}@${domain}>`;
}

/**
 * The fixed last line of every order e-mail, whatever the product's template (docs/product.md §21):
 * where the customer finds all their licences later.
 */
export function licenceCentreFooter(publicUrl: string): string {
  const url = `${publicUrl}/my-licences`;
  return `<p style="font-size:12px;color:#555">All your licences, any time: <a href="${escapeHtml(url)}">${escapeHtml(url)}</a></p>`;
}

/**
 * Sends the order e-mail of one redemption once however often its job is delivered: the row is claimed with a
 * conditional UPDATE before sending, and a sent e-mail is never claimed again. At least once: a sender that dies
 * after the SMTP server accepted and before `finishEmail` leaves the row pending, and it goes again with the same
 * Message-ID (docs/operations.md "Order e-mail delivery").
 */
@Injectable()
export class RedemptionMailService {
  private readonly logger = new Logger(RedemptionMailService.name);

  constructor(
    private readonly redemptions: RedemptionMailOutboxRepository,
    private readonly emailLogs: EmailLogRepository,
    private readonly transport: MailTransportService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: DomainEvents,
  ) {}

  /**
   * One delivery attempt. Throws RetryableMailError when every provider failed and attempts remain,
   * so the queue retries with backoff; on the last attempt the redemption is marked failed instead.
   */
  async deliver(redemptionId: string, attempt: number, maxAttempts: number): Promise<DeliveryOutcome> {
    // Claimed and read in one statement; not due (or deleted): nothing to send.
    const row = await this.redemptions.claimEmail(redemptionId, this.config.mailClaimSeconds);
    if (!row) return 'skipped';

    // docs/product.md §12.7: a Mac product's packages; its installer is the product's link (a key's is the package).
    const links = macPackageLinks(row);
    const values: TemplateValues = {
      customer_name: `${row.first_name} ${row.last_name}`.trim(),
      first_name: row.first_name,
      last_name: row.last_name,
      voucher_code: row.code,
      product_name: row.product_name,
      license_key: stripManualPrefix(row.license_key ?? row.product_key ?? ''),
      download_link: isMacProduct(row.product_name) ? row.product_link : (row.license_link ?? row.product_link),
      activation_link: links.activationLink,
      removal_tool_link: links.removalToolLink,
      support_email: this.config.supportEmail,
    };
    const subject = renderTemplate(row.email_subject || 'Your {{product_name}} order', values, false);
    const html = renderTemplate(row.email_template, values, true) + licenceCentreFooter(this.config.publicUrl);
    const messageId = orderEmailMessageId(redemptionId, row.email_resends, this.config.mailFrom);
    const attempts = await this.transport.send({ to: row.email, subject, html, text: htmlToText(html), messageId });
    await this.emailLogs.logAttempts(redemptionId, row.email, subject, attempts);

    const delivered = attempts.some((a) => a.ok);
    const last = attempt >= maxAttempts;
    const status = delivered ? 'sent' : last ? 'failed' : 'pending';
    await this.redemptions.finishEmail(redemptionId, status);
    // A settled status is announced (the admin lists show it and are not polled; a failure is also a webhook).
    if (delivered) {
      await this.events.publish('email.sent', { redemptionId, voucherCode: row.code });
      return 'sent';
    }
    if (last) {
      this.logger.error(`Order e-mail for redemption ${redemptionId} failed after ${attempt} attempts`);
      await this.events.publish('email.failed', {
        redemptionId,
        voucherCode: row.code,
        attempts: attempt,
        // The class and SMTP code only: the provider's text quotes the customer's address (docs/security.md).
        errors: attempts.map((a) => ({
          provider: a.provider,
          reason: a.failure?.reason ?? 'other',
          smtpCode: a.failure?.smtpCode ?? null,
        })),
      });
      return 'failed';
    }
    throw new RetryableMailError(attempts.map((a) => `${a.provider}: ${a.error}`).join('; '));
  }

  /** Redemptions whose e-mail is pending with no live claim: their job was lost (Redis down, worker died). */
  async findStalePending(olderThanMs: number, limit = 500): Promise<string[]> {
    return this.redemptions.findStalePending(olderThanMs, limit);
  }
}
