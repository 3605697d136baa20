import { Injectable, NotFoundException, UnauthorizedException } from '@nestjs/common';
import { AuthCustomer } from '../../common/decorators/customer-route.decorator';
import { Clock } from '../../common/clock';
import { AUTH_MESSAGES } from '../auth/auth.guard';
import { RedemptionHistoryService } from '../history/redemption-history.service';
import { EmailLogRepository } from '../mail/email-log.repository';
import { CustomerDataRepository, CustomerLicence } from '../redemption/customer-data.repository';
import { OrderEmailResendService, RESEND_ANSWER } from '../redemption/order-email-resend.service';
import { PRIVACY_ACTIONS } from './access-link.service';
import { DomainEvents } from '../../events/domain-events.service';

export const REDEMPTION_NOT_FOUND = 'Redemption not found';

/**
 * What a signed-in customer sees and asks for in the licence centre (docs/product.md §21): their
 * licences, a resend of one order e-mail, and everything stored about them. Every call first checks that the
 * session's customer still holds the address (an erasure ends every session at once: 401).
 */
@Injectable()
export class CustomerCentreService {
  constructor(
    private readonly customers: CustomerDataRepository,
    private readonly resends: OrderEmailResendService,
    private readonly emailLogs: EmailLogRepository,
    private readonly history: RedemptionHistoryService,
    private readonly events: DomainEvents,
    private readonly clock: Clock,
  ) {}

  async licences(customer: AuthCustomer): Promise<CustomerLicence[]> {
    await this.requireLive(customer);
    return this.customers.licencesOf(customer.email);
  }

  /** Another address's redemption (or an unknown id) is 404; the limits are the self-service resend's. */
  async resend(customer: AuthCustomer, redemptionId: string, ip: string, userAgent: string | null) {
    await this.requireLive(customer);
    if (!(await this.customers.owns(customer.email, redemptionId))) throw new NotFoundException(REDEMPTION_NOT_FOUND);
    await this.resends.resendOwn(redemptionId, ip, userAgent);
    return RESEND_ANSWER;
  }

  /** Everything stored about the address (docs/product.md §21.3), as one JSON document. */
  async data(customer: AuthCustomer, ip: string, userAgent: string | null) {
    await this.requireLive(customer);
    const record = await this.customers.recordOf(customer.email);
    if (!record) throw new UnauthorizedException(AUTH_MESSAGES.invalidToken);
    const ids = record.redemptions.map((r) => r.redemptionId);
    const [emails, histories] = await Promise.all([
      this.emailLogs.forCustomer(customer.email, ids),
      Promise.all(ids.map((id) => this.history.history(id))),
    ]);
    await this.events.publish(PRIVACY_ACTIONS.dataExport, {
      success: true,
      resource: 'customer',
      resourceId: customer.customerId,
      ipAddress: ip,
      userAgent,
      details: { redemptions: ids.length },
    });
    return {
      exportedAt: this.clock.now(),
      customer: record.customer,
      redemptions: record.redemptions.map((r, i) => ({
        ...r,
        // Staff are named by role only: their accounts are not the customer's data.
        history: histories[i].events.map((e) => ({
          at: e.at,
          type: e.type,
          by: e.actor === 'Customer' || e.actor === 'System' || e.actor === null ? e.actor : 'Staff',
          description: e.description,
        })),
      })),
      emailsSent: emails.map((e) => ({
        at: e.createdAt,
        redemptionId: e.redemptionId,
        recipient: e.recipient,
        subject: e.subject,
        status: e.status,
        provider: e.provider,
      })),
    };
  }

  /** The session's customer row must still hold the address (an erased customer's sessions end). */
  async requireLive(customer: AuthCustomer): Promise<void> {
    const id = await this.customers.customerWithRedemptions(customer.email);
    if (id !== customer.customerId) throw new UnauthorizedException(AUTH_MESSAGES.invalidToken);
  }
}
