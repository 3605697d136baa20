import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The pool summary per product (keys that are not MANUAL_), one row per shard (migration 1763820000000): kept by
 * every writer of license_keys in its own statement (issue 26, common/utils/counters-sql.ts), read summed by
 * LicenseKeyAdminRepository and LicenseStockRepository.
 */
@Entity({ name: 'license_key_counts' })
export class LicenseKeyCount {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_license_key_counts' })
  productId: string;

  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_license_key_counts' })
  shard: number;

  @Column({ type: 'bigint', default: 0 })
  total: string;

  @Column({ type: 'bigint', default: 0 })
  active: string;

  /** No activation yet. */
  @Column({ type: 'bigint', default: 0 })
  available: string;

  @Column({ name: 'partially_used', type: 'bigint', default: 0 })
  partiallyUsed: string;

  @Column({ name: 'fully_used', type: 'bigint', default: 0 })
  fullyUsed: string;

  /** Activations still free on the active keys (the pool forecast; migration 1763820000300). */
  @Column({ type: 'bigint', default: 0 })
  room: string;
}
