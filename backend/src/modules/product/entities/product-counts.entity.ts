import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A product's code and redemption figures, one row per batch and shard (migrations 1763820000000, 1763823000000):
 * kept by every statement that writes voucher_codes or redemptions, and by the export's (issue 26, no triggers;
 * common/utils/counters-sql.ts), read summed over the shards (ProductRepository: a product's figures over all its
 * batches, a batch's over its shards). No foreign key: readers join `products`, so the rows of a product deleted by
 * hand (the application deletes none) count nowhere.
 */
@Entity({ name: 'product_counts' })
export class ProductCounts {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_product_counts' })
  productId: string;

  /**
   * The batch of the counted codes (`upload_batches.id`; a code without one counts under its product's id, the id of
   * its "before batches" batch). A redemption counts under its code's batch.
   */
  @PrimaryColumn({ name: 'batch_id', type: 'uuid', primaryKeyConstraintName: 'pk_product_counts' })
  batchId: string;

  /**
   * `pg_backend_pid() % 32` of the writing connection: concurrent writers of one product touch different rows. Exports write
   * 32 + that (their own rows, held until the file is written: no redemption waits for them).
   */
  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_product_counts' })
  shard: number;

  /** Codes neither redeemed nor void. */
  @Column({ type: 'bigint', default: 0 })
  available: string;

  @Column({ type: 'bigint', default: 0 })
  redeemed: string;

  @Column({ type: 'bigint', default: 0 })
  void: string;

  /** Redemption rows (a deleted redemption drops out; its code stays redeemed). */
  @Column({ type: 'bigint', default: 0 })
  redemptions: string;

  /** Redemption rows marked exported (counted by the export's statement; a deleted redemption drops out). */
  @Column({ type: 'bigint', default: 0 })
  exported: string;
}
