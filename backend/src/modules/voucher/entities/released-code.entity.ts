import { Column, Entity, Index, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { VoucherCode } from './voucher-code.entity';

/**
 * A redeemed code whose redemption was deleted (by an admin, or by retention: docs/product.md §1.5): the code stays
 * redeemed, and the Redeemed tab lists it beside the codes that have their redemption (migration 1763844000000,
 * docs/architecture.md "A code's state"). Written by the statement that deletes the redemption; goes with its code.
 */
@Entity({ name: 'released_codes' })
// A product's released codes, most recently redeemed first (read backwards), merged with idx_redemptions_product_redeemed.
@Index('idx_released_codes_product', ['productId', 'redeemedAt', 'voucherCodeId'])
export class ReleasedCode {
  @PrimaryColumn({ name: 'voucher_code_id', type: 'uuid', primaryKeyConstraintName: 'released_codes_pkey' })
  voucherCodeId: string;

  @OneToOne(() => VoucherCode, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'voucher_code_id', foreignKeyConstraintName: 'released_codes_voucher_code_id_fkey' })
  voucherCode?: VoucherCode;

  /** The code's product (no foreign key: the code's own cascades with its product). */
  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  /** When the code was redeemed (its deleted redemption's time). */
  @Column({ name: 'redeemed_at', type: 'timestamptz' })
  redeemedAt: Date;
}
