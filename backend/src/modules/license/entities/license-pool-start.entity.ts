import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { Product } from '../../product/entities/product.entity';

/**
 * Where a product's pool scan starts (migration 1763842000000, docs/architecture.md "The pool's start"): no key of
 * the product before (key_created_at, key_id) in the pool's order has room. Kept by LicensePoolStartRepository (the
 * job that moves it forward, and the key writers that lower it); read by the redemption statement.
 */
@Entity({ name: 'license_pool_starts' })
export class LicensePoolStart {
  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_license_pool_starts' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'fk_license_pool_starts_product' })
  product?: Product;

  @Column({ name: 'key_created_at', type: 'timestamptz' })
  keyCreatedAt: Date;

  @Column({ name: 'key_id', type: 'uuid' })
  keyId: string;
}
