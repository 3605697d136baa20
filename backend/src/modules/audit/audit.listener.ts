import { Injectable } from '@nestjs/common';
import { AUDITED_EVENTS, AuditedEventName, DomainEventMap as Events, Fact } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { AuditService } from './audit.service';

/**
 * The security_audit_log row of every audited event (its action is the event's name), written inside the publisher's
 * transaction: a write that rolls back leaves no row, and a row that cannot be written rolls the write back. Outside a
 * transaction a failed row is logged and the action stands (AuditService.record). An event about one redemption
 * (its resource) gives the row that redemption (`redemption_id`, read by the redemption's history).
 */
@Injectable()
export class AuditListener {
  constructor(private readonly audit: AuditService) {}

  @OnDomainEvent(AUDITED_EVENTS, 'in-transaction')
  async record(fact: Fact, action: AuditedEventName): Promise<void> {
    if (action === 'customer.erasure') await this.forget(fact as Events['customer.erasure']);
    const { success, adminUserId, resource, resourceId, ipAddress, userAgent, details } = fact;
    const redemptionId = resource === 'redemption' ? resourceId : null;
    await this.audit.record({
      action,
      success,
      adminUserId,
      resource,
      resourceId,
      redemptionId,
      ipAddress,
      userAgent,
      details,
    });
  }

  /** An erasure (docs/product.md §21.3): the customer's own audit rows lose address and user agent, before its row. */
  private forget({ erased, forget }: Events['customer.erasure']): Promise<void> {
    return this.audit.forgetClient(erased.redemptionIds, erased.customerId, forget.email);
  }
}
