import { Injectable } from '@nestjs/common';
import { RedemptionRepository } from './redemption.repository';

/** A code that had been redeemed before its refund: it stays redeemed, its redemption is marked, the key stays. */
export interface RefundedAfterRedemption {
  code: string;
  /** Null when the redemption was deleted since (the code stays redeemed). */
  redemptionId: string | null;
  redeemedAt: Date | null;
  refundedAt: Date | null;
}

/**
 * The redemption side of a refund (docs/product.md §19.3): the marketplace refunded vouchers whose codes had already
 * been redeemed, so their redemptions get `refunded_at` (an earlier refund's time is kept) and keep their key (a key
 * the customer has seen never returns to the pool). The voucher module's void (`VoucherVoidService`) voids the
 * available codes and hands over the redeemed ones, as its own repository found them, on the void's client and
 * transaction: the marks commit or roll back with the void. Nothing here reads or writes `voucher_codes`.
 */
@Injectable()
export class RefundService {
  constructor(private readonly redemptions: RedemptionRepository) {}

  /** Marks the redemptions of these redeemed codes refunded, in the void's transaction (its held client); one statement. */
  async refundRedeemed(redeemed: Array<{ id: string; code: string }>): Promise<RefundedAfterRedemption[]> {
    const marked = await this.redemptions.markRefunded(redeemed.map((r) => r.id));
    const byCode = new Map(marked.map((m) => [m.voucherCodeId, m]));
    return redeemed.map((r): RefundedAfterRedemption => {
      const m = byCode.get(r.id);
      return {
        code: r.code,
        redemptionId: m?.id ?? null,
        redeemedAt: m?.redeemedAt ?? null,
        refundedAt: m?.refundedAt ?? null,
      };
    });
  }
}
