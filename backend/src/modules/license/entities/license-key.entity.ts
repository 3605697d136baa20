import {
  Check,
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { Product } from '../../product/entities/product.entity';

export const MANUAL_KEY_PREFIX = 'MANUAL_';
export type LicenseType = 'single-user' | 'volume';

@Entity({ name: 'license_keys' })
// Keys are unique per product (DECISIONS §8); a duplicate is a 409.
@Unique('uq_license_keys_product_key', ['productId', 'licenseKey'])
@Check('chk_license_keys_type', `license_type IN ('single-user', 'volume')`)
// A key is never used more often than it may be, whatever the code does.
@Check('chk_license_keys_activations', 'current_activations >= 0 AND current_activations <= max_activations')
// The pool query: active keys of a product with room left, oldest first.
@Index('idx_license_keys_pool', ['productId', 'createdAt', 'id'], {
  where: 'is_active AND current_activations < max_activations',
})
// Substring search: GIN (license_key gin_trgm_ops), an operator class TypeORM cannot declare.
@Index('idx_license_keys_key_trgm', { synchronize: false })
// The list order, (usage rank, created_at DESC, id DESC) overall and per product, WHERE the key is not MANUAL_:
// expressions TypeORM cannot declare (migration 1763700005010).
@Index('idx_license_keys_list', { synchronize: false })
@Index('idx_license_keys_product_list', { synchronize: false })
export class LicenseKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'license_keys_product_id_fkey' })
  product?: Product;

  @Column({ name: 'license_key', type: 'varchar', length: 64 })
  licenseKey: string;

  @Column({ name: 'download_link', type: 'varchar', length: 2048 })
  downloadLink: string;

  @Column({ name: 'license_type', type: 'varchar', length: 20, default: 'single-user' })
  licenseType: LicenseType;

  @Column({ name: 'max_activations', type: 'int', default: 1 })
  maxActivations: number;

  @Column({ name: 'current_activations', type: 'int', default: 0 })
  currentActivations: number;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}

/** A manual key as the customer knows it: without its `MANUAL_` prefix. */
export function stripManualPrefix(key: string): string {
  return key.startsWith(MANUAL_KEY_PREFIX) ? key.slice(MANUAL_KEY_PREFIX.length) : key;
}
