import { Injectable } from '@nestjs/common';
import { DomainEventMap as Events } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { WebhookEvents } from './webhook-events';

/**
 * The events endpoints may subscribe to (docs/product.md §20.4), queued once the change committed: a receiver never
 * hears of a change that rolled back. WebhookEvents.emit masks inventory fields and never throws.
 */
@Injectable()
export class WebhookListener {
  constructor(private readonly webhooks: WebhookEvents) {}

  @OnDomainEvent('redemption.created', 'after-commit')
  async redeemed(e: Events['redemption.created']): Promise<void> {
    const { redemptionId, voucherCode, productName, isManualProcessing } = e;
    await this.webhooks.emit('redemption.created', { redemptionId, voucherCode, productName, isManualProcessing });
  }

  @OnDomainEvent('redemption.assign-license', 'after-commit')
  async assigned(e: Events['redemption.assign-license']): Promise<void> {
    await this.webhooks.emit('redemption.license_assigned', {
      redemptionId: e.redemptionId,
      voucherCode: e.voucherCode,
      source: 'manual',
    });
  }

  @OnDomainEvent('redemption.bulk-assign-license', 'after-commit')
  async bulkAssigned(e: Events['redemption.bulk-assign-license']): Promise<void> {
    for (const redemptionId of e.assignedIds) {
      await this.webhooks.emit('redemption.license_assigned', { redemptionId, source: 'bulk' });
    }
  }

  @OnDomainEvent('emails.fix-pending', 'after-commit')
  async poolAssigned(e: Events['emails.fix-pending']): Promise<void> {
    for (const redemptionId of e.poolAssignedIds) {
      await this.webhooks.emit('redemption.license_assigned', { redemptionId, source: 'pool' });
    }
  }

  @OnDomainEvent('redemption.backorders-filled', 'after-commit')
  async backordersFilled(e: Events['redemption.backorders-filled']): Promise<void> {
    for (const redemptionId of e.redemptionIds) {
      await this.webhooks.emit('redemption.license_assigned', { redemptionId, source: 'pool' });
    }
  }

  @OnDomainEvent('email.failed', 'after-commit')
  async emailFailed(e: Events['email.failed']): Promise<void> {
    const { redemptionId, voucherCode, attempts, errors } = e;
    await this.webhooks.emit('email.failed', { redemptionId, voucherCode, attempts, errors });
  }

  @OnDomainEvent('pool.low', 'after-commit')
  async poolLow(e: Events['pool.low']): Promise<void> {
    const { productId, productName, availableActivations, redeemedLast7Days, perDay, daysLeft } = e;
    await this.webhooks.emit('pool.low', {
      productId,
      productName,
      availableActivations,
      redeemedLast7Days,
      perDay,
      daysLeft,
    });
  }

  @OnDomainEvent('vouchers.void', 'after-commit')
  async voided({ changed }: Events['vouchers.void']): Promise<void> {
    if (!changed) return;
    const { productId, productName, voided, refundedAfterRedemption, refundedCodes, unknown, alreadyVoid } = changed;
    await this.webhooks.emit('voucher.voided', {
      productId,
      productName,
      voided,
      refundedAfterRedemption,
      refundedCodes,
      unknown,
      alreadyVoid,
    });
  }

  @OnDomainEvent('marketplace.report.dead', 'after-commit')
  async reportDead(e: Events['marketplace.report.dead']): Promise<void> {
    const { connectionId, reportId, kind, redemptionId, code, attempts, lastError } = e;
    await this.webhooks.emit('marketplace.report.dead', {
      connectionId,
      reportId,
      kind,
      redemptionId,
      code,
      attempts,
      lastError,
    });
  }

  @OnDomainEvent('redemption.held', 'after-commit')
  async held(e: Events['redemption.held']): Promise<void> {
    const { redemptionId, voucherCode, productName, rules } = e;
    await this.webhooks.emit('redemption.held', { redemptionId, voucherCode, productName, rules });
  }

  @OnDomainEvent('review.approve', 'after-commit')
  async approved(e: Events['review.approve']): Promise<void> {
    const { redemptionId, voucherCode, productName, keyAssigned } = e;
    await this.webhooks.emit('redemption.approved', { redemptionId, voucherCode, productName, keyAssigned });
    // A key from the pool, as any other assignment announces it.
    if (keyAssigned) {
      await this.webhooks.emit('redemption.license_assigned', { redemptionId, voucherCode, source: 'review' });
    }
  }

  @OnDomainEvent('review.refuse', 'after-commit')
  async refused(e: Events['review.refuse']): Promise<void> {
    const { redemptionId, voucherCode, productName } = e;
    await this.webhooks.emit('redemption.refused', { redemptionId, voucherCode, productName });
  }

  @OnDomainEvent('customer.erasure', 'after-commit')
  async erased({ erased }: Events['customer.erasure']): Promise<void> {
    await this.webhooks.emit('customer.erased', {
      customerId: erased.customerId,
      redemptionIds: erased.redemptionIds,
      erasedAt: erased.erasedAt,
    });
  }
}
