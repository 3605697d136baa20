import { Injectable } from '@nestjs/common';
import { DomainEventMap as Events } from '../../events/domain-events';
import { OnDomainEvent } from '../../events/domain-events.service';
import { RedemptionRepository } from './redemption.repository';

/**
 * The redemption side of a refund (docs/product.md §19.3): the marketplace refunded vouchers whose codes had already
 * been redeemed, so their redemptions get `refunded_at` (an earlier refund's time is kept) and keep their key (a key
 * the customer has seen never returns to the pool). The voucher module's void publishes `vouchers.refunded` with the
 * redeemed codes its own repository found, inside its transaction on its held client: the marks are written there
 * (in-transaction), so they commit or roll back with the void, and a mark that fails fails the void. Nothing here
 * reads or writes `voucher_codes`.
 */
@Injectable()
export class RefundListener {
  constructor(private readonly redemptions: RedemptionRepository) {}

  @OnDomainEvent('vouchers.refunded', 'in-transaction')
  async refunded(e: Events['vouchers.refunded']): Promise<void> {
    await this.redemptions.markRefunded(e.codes.map((c) => c.voucherCodeId));
  }
}
