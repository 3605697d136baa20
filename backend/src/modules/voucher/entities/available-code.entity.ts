import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * An available code (neither redeemed nor void), listed off the code's row so that the redemption's update of its code
 * stays heap-only (migration 1763845000000, docs/architecture.md "A code's state"). Written in the statement that makes
 * a code available (the upload) and deleted in each that ends it (the redemption, a void, a code's delete). The
 * primary key (product_id, seq) INCLUDE (voucher_code_id) is the Unredeemed tab's order, newest first read backwards;
 * TypeORM cannot declare the INCLUDE (the migration builds it). No foreign key: its check would cost every uploaded
 * code a lookup; the rows of a product deleted by hand (the application deletes none) list nothing.
 */
@Entity({ name: 'available_codes' })
export class AvailableCode {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'available_codes_pkey' })
  productId: string;

  /** The code's `seq` (its insertion order). */
  @PrimaryColumn({ type: 'bigint', primaryKeyConstraintName: 'available_codes_pkey' })
  seq: string;

  @Column({ name: 'voucher_code_id', type: 'uuid' })
  voucherCodeId: string;
}
