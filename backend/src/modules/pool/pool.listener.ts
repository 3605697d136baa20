import { Injectable } from '@nestjs/common';
import { DomainEventMap as Events } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { PoolChecks } from './pool-checks';

/**
 * Keys left a product's pool (or none was left): its forecast is checked for the low-pool alert (docs/product.md
 * §20.2), throttled per product (`PoolChecks`), once the redemption or the assignment committed.
 */
@Injectable()
export class PoolListener {
  constructor(private readonly checks: PoolChecks) {}

  @OnDomainEvent('redemption.created', 'after-commit')
  redeemed(e: Events['redemption.created']): void {
    if (e.isLicenseManaged) this.checks.notePoolUse(e.productId);
  }

  @OnDomainEvent('emails.fix-pending', 'after-commit')
  fixedPending(e: Events['emails.fix-pending']): void {
    for (const productId of e.poolProductIds) this.checks.notePoolUse(productId);
  }

  /** An approved review took a pool key (docs/product.md §25.3). */
  @OnDomainEvent('review.approve', 'after-commit')
  approved(e: Events['review.approve']): void {
    if (e.keyAssigned) this.checks.notePoolUse(e.productId);
  }

  @OnDomainEvent('redemption.backorders-filled', 'after-commit')
  backordersFilled(e: Events['redemption.backorders-filled']): void {
    for (const productId of e.productIds) this.checks.notePoolUse(productId);
  }
}
