import { createHash } from 'crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuthCustomer } from '../../common/decorators/customer-route.decorator';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DatabaseService } from '../../database/database.service';
import { EmailLogRepository } from '../mail/email-log.repository';
import { MailTransportService } from '../mail/mail-transport.service';
import { escapeHtml, htmlToText } from '../mail/template';
import { CustomerDataRepository } from '../redemption/customer-data.repository';
import { AccessLinkRepository } from './access-link.repository';
import { PRIVACY_ACTIONS } from './access-link.service';
import { CustomerCentreService } from './customer-centre.service';
import { DomainEvents } from '../../events/domain-events.service';

export const ERASURE_ANSWER = {
  message: 'Your personal data has been deleted. A confirmation was sent to your e-mail address.',
} as const;

/**
 * "Delete my personal data" (docs/product.md §21.3). The confirmation e-mail goes out first (sent directly,
 * primary then fallback: no outbox row may keep the address afterwards), then one transaction removes the personal
 * data from every owner: customer and redemptions (names, e-mail, phone, zip code, IP, country; success tokens go),
 * e-mail logs (recipient, subject, the address in provider errors), the customer's own audit rows (address, user
 * agent) and the sign-in links; an audit row with no personal data records it. Redemptions stay for the accounts,
 * so counters and statistics do not change. A failed confirmation does not stop the erasure (the audit row says so).
 */
@Injectable()
export class ErasureService {
  private readonly logger = new Logger(ErasureService.name);

  constructor(
    private readonly centre: CustomerCentreService,
    private readonly customers: CustomerDataRepository,
    private readonly emailLogs: EmailLogRepository,
    private readonly links: AccessLinkRepository,
    private readonly events: DomainEvents,
    private readonly transport: MailTransportService,
    private readonly database: DatabaseService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async erase(customer: AuthCustomer): Promise<typeof ERASURE_ANSWER> {
    await this.centre.requireLive(customer);
    const { email } = customer;
    const { subject, html } = this.confirmationMail();
    const attempts = await this.transport.send({ to: email, subject, html, text: htmlToText(html) });
    await this.emailLogs.logAttempts(null, email, subject, attempts);
    const confirmationSent = attempts.some((a) => a.ok);
    if (!confirmationSent) {
      this.logger.warn(`Erasure confirmation for customer ${customer.customerId} could not be sent`);
    }

    await this.database.transaction(async () => {
      const done = await this.customers.erase(email);
      if (!done) return;
      const emailLogs = await this.emailLogs.erase(email, done.redemptionIds);
      await this.links.deleteFor(email);
      await this.events.publish(PRIVACY_ACTIONS.erasure, {
        success: true,
        resource: 'customer',
        resourceId: done.customerId,
        details: {
          // A keyed hash proves, to whoever still knows the address, that it was this one; it reveals nothing.
          emailHash: createHash('sha256').update(`${this.config.jwtSecret}:${email}`).digest('hex').slice(0, 16),
          redemptions: done.redemptionIds.length,
          redemptionIds: done.redemptionIds,
          emailLogs,
          confirmationSent,
        },
        // After the commit: the consoles (throttled) and the `customer.erased` webhook (ids and time only).
        erased: { customerId: done.customerId, redemptionIds: done.redemptionIds, erasedAt: done.erasedAt },
        // In the transaction, before its own row: the customer's earlier audit rows lose address and user agent.
        forget: { email },
      });
    });
    return ERASURE_ANSWER;
  }

  private confirmationMail(): { subject: string; html: string } {
    const subject = `Your personal data has been deleted – ${this.config.companyName}`;
    const html =
      `<p>Hello,</p><p>As you asked in your licence centre, we are deleting the personal data stored with the ` +
      `licences issued to this e-mail address: names, e-mail address, phone number, zip code and IP address.</p>` +
      `<p>Your licences stay valid. We keep only what the accounts need (voucher codes, products, dates, licence ` +
      `assignments), without anything that identifies you. This is the last e-mail we send to this address about them.</p>` +
      `<p>${escapeHtml(this.config.companyName)} · ${escapeHtml(this.config.supportEmail)}</p>`;
    return { subject, html };
  }
}
