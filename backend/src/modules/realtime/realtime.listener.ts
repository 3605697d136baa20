import { Injectable } from '@nestjs/common';
import { DomainEventMap as Events, EXPORT_KINDS } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { RealtimeService } from './realtime.service';

/**
 * What the admin consoles are told (`dataUpdate`), after the change committed. Changes made by public traffic
 * (redemptions, customers' requests, e-mail outcomes) are throttled (RealtimeService.emitThrottled).
 */
@Injectable()
export class RealtimeListener {
  constructor(private readonly realtime: RealtimeService) {}

  @OnDomainEvent('redemption.created', 'after-commit')
  redeemed(e: Events['redemption.created']): void {
    // A redeemed code changes the product counts and stats; a pool key handed out is a licence assignment.
    this.realtime.emitThrottled(
      e.poolKeyAssigned ? 'licenseAssignment' : 'voucherUpdate',
      `Voucher ${e.voucherCode} redeemed`,
    );
  }

  @OnDomainEvent('redemption.held', 'after-commit')
  held(e: Events['redemption.held']): void {
    this.realtime.emitThrottled('reviewUpdate', `Redemption of voucher ${e.voucherCode} held for review`);
  }

  @OnDomainEvent('review.approve', 'after-commit')
  approved(e: Events['review.approve']): void {
    this.realtime.emit('reviewUpdate', `Redemption of voucher ${e.voucherCode} approved`);
  }

  @OnDomainEvent('review.refuse', 'after-commit')
  refused(e: Events['review.refuse']): void {
    this.realtime.emit('reviewUpdate', `Redemption of voucher ${e.voucherCode} refused`);
  }

  @OnDomainEvent('redemption.resend-email', 'after-commit')
  resent(e: Events['redemption.resend-email']): void {
    if (e.success && e.voucherCode) {
      this.realtime.emit('emailResend', `E-mail for voucher ${e.voucherCode} queued for sending`);
    }
  }

  @OnDomainEvent('redemption.customer-resend', 'after-commit')
  customerResent(e: Events['redemption.customer-resend']): void {
    if (e.success && e.voucherCode) {
      this.realtime.emitThrottled('emailResend', `Customer asked for the e-mail of voucher ${e.voucherCode} again`);
    }
  }

  @OnDomainEvent('redemption.assign-license', 'after-commit')
  assigned(e: Events['redemption.assign-license']): void {
    this.realtime.emit('licenseAssignment', `License assigned to voucher ${e.voucherCode}`);
  }

  @OnDomainEvent('redemption.bulk-assign-license', 'after-commit')
  bulkAssigned(e: Events['redemption.bulk-assign-license']): void {
    if (e.assignedIds.length) {
      this.realtime.emit('licenseAssignment', `License assigned to ${e.assignedIds.length} redemption(s)`);
    }
  }

  @OnDomainEvent('redemption.delete', 'after-commit')
  deleted(e: Events['redemption.delete']): void {
    this.realtime.emit('redemptionDeleted', `Redemption of voucher ${e.voucherCode} deleted`);
  }

  @OnDomainEvent('redemption.bulk-delete', 'after-commit')
  bulkDeleted(e: Events['redemption.bulk-delete']): void {
    if (e.deletedCount) this.realtime.emit('redemptionDeleted', `${e.deletedCount} redemption(s) deleted`);
  }

  @OnDomainEvent('emails.fix-pending', 'after-commit')
  fixedPending(e: Events['emails.fix-pending']): void {
    if (e.poolAssignedIds.length) {
      this.realtime.emit('licenseAssignment', `${e.poolAssignedIds.length} waiting redemption(s) received a license`);
    }
    if (e.queuedCount) this.realtime.emit('emailResend', `${e.queuedCount} pending e-mail(s) queued`);
  }

  @OnDomainEvent('redemption.backorders-filled', 'after-commit')
  backordersFilled(e: Events['redemption.backorders-filled']): void {
    this.realtime.emit('licenseAssignment', `${e.redemptionIds.length} waiting redemption(s) received a license`);
  }

  @OnDomainEvent('system.cleanup', 'after-commit')
  cleaned(): void {
    this.realtime.emit('redemptionDeleted', 'System cleaned: all redemptions deleted');
    this.realtime.emit('voucherUpdate', 'System cleaned: all voucher codes deleted');
  }

  @OnDomainEvent('ip.blocked', 'after-commit')
  blocked(e: Events['ip.blocked']): void {
    if (!e.guessing) return;
    const { group, minutes, failures } = e.guessing;
    this.realtime.emit(
      'ipBlocked',
      `Address ${group} blocked for ${minutes} minutes after ${failures} invalid voucher codes`,
    );
  }

  @OnDomainEvent(['email.sent', 'email.failed'], 'after-commit')
  emailSettled(e: { voucherCode: string }, name: 'email.sent' | 'email.failed'): void {
    // The admin lists show the e-mail status and are not polled (a burst of sends refreshes them once a second).
    this.realtime.emitThrottled(
      'emailStatus',
      `Order e-mail for voucher ${e.voucherCode} ${name === 'email.sent' ? 'sent' : 'failed'}`,
    );
  }

  @OnDomainEvent(['product.create', 'product.update'], 'after-commit')
  product(e: Events['product.create'], name: 'product.create' | 'product.update'): void {
    this.realtime.emit(
      'productUpdate',
      `Product ${e.productName} ${name === 'product.create' ? 'created' : 'updated'}`,
    );
  }

  @OnDomainEvent('vouchers.upload', 'after-commit')
  uploaded(e: Events['vouchers.upload']): void {
    if (e.success && e.inserted) {
      this.realtime.emit('voucherUpdate', `${e.inserted} voucher code(s) uploaded for ${e.productName}`);
    }
  }

  @OnDomainEvent('vouchers.void', 'after-commit')
  voided({ changed }: Events['vouchers.void']): void {
    if (!changed) return;
    this.realtime.emit(
      'voucherUpdate',
      `${changed.voided} voucher code(s) voided for ${changed.productName}` +
        (changed.refundedRedemptions ? `, ${changed.refundedRedemptions} redemption(s) marked refunded` : ''),
    );
  }

  @OnDomainEvent('vouchers.delete', 'after-commit')
  codeDeleted(e: Events['vouchers.delete']): void {
    if (e.success && e.voucherCode) {
      this.realtime.emit(
        'voucherUpdate',
        `Voucher code ${e.voucherCode} deleted from ${e.productName ?? 'its product'}`,
      );
    }
  }

  @OnDomainEvent('vouchers.bulk-delete', 'after-commit')
  codesDeleted(e: Events['vouchers.bulk-delete']): void {
    if (e.deletedCount > 0) {
      this.realtime.emit('voucherUpdate', `${e.deletedCount} voucher code(s) deleted from ${e.productName}`);
    }
  }

  @OnDomainEvent(EXPORT_KINDS.map((kind) => `export.${kind}` as const), 'after-commit')
  exported(e: Events['export.batch']): void {
    // Only exports that mark redemptions exported change what the lists show.
    if (e.exportedRows !== undefined) this.realtime.emit('voucherUpdate', `${e.exportedRows} redemption(s) exported`);
  }

  @OnDomainEvent('customer.erasure', 'after-commit')
  erased(e: Events['customer.erasure']): void {
    this.realtime.emitThrottled(
      'customerErased',
      `A customer's personal data was erased (${e.erased.redemptionIds.length} redemptions)`,
    );
  }
}
