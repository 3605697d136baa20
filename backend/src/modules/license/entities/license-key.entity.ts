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
// Keys are unique per product (docs/product.md §14.1); a duplicate is a 409. The clear key is not stored: its keyed hash
// (HMAC-SHA256 under a key derived from DATA_KEY) carries the uniqueness (docs/product.md §18.1, docs "Keys at rest").
@Unique('uq_license_keys_product_hash', ['productId', 'keyHash'])
// A row is either sealed (ciphertext, hash, last characters; no clear key) or a plain row written before
// migration 1763700007000, which the start-up step seals and empties: never both, never neither.
@Check(
  'chk_license_keys_sealed',
  `(license_key IS NULL AND key_ciphertext IS NOT NULL AND key_hash IS NOT NULL AND key_last IS NOT NULL)
    OR (license_key IS NOT NULL AND key_ciphertext IS NULL AND key_hash IS NULL)`,
)
@Check('chk_license_keys_type', `license_type IN ('single-user', 'volume')`)
// A key is never used more often than it may be, whatever the code does.
@Check('chk_license_keys_activations', 'current_activations >= 0 AND current_activations <= max_activations')
// The pool query: active keys of a product with room left, oldest first.
@Index('idx_license_keys_pool', ['productId', 'createdAt', 'id'], {
  where: 'is_active AND current_activations < max_activations',
})
// Substring search of the clear last characters: GIN (key_last gin_trgm_ops), an operator class TypeORM cannot declare.
@Index('idx_license_keys_key_trgm', { synchronize: false })
// The list order, (usage rank, created_at DESC, id DESC) overall and per product, WHERE NOT is_manual:
// expressions TypeORM cannot declare (migrations 1763700005010, 1763700007000).
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

  /**
   * The clear key of a row written before keys were sealed; NULL once the start-up step has sealed it (and for
   * every row written since). Kept as an emptied nullable column rather than dropped: a migration cannot seal
   * (DATA_KEY lives in the application, and the sealing is Node's), and this column is the resumable step's work
   * list (`WHERE license_key IS NOT NULL`), so an instance of the old version that still writes plain rows during
   * a rolling deploy has them sealed at the next start instead of failing or leaking.
   */
  @Column({ name: 'license_key', type: 'varchar', length: 64, nullable: true })
  licenseKey: string | null;

  /** AES-256-GCM of the stored key (`MANUAL_` prefix included) under DATA_KEY: version, key id, nonce, ciphertext, tag. */
  @Column({ name: 'key_ciphertext', type: 'bytea', nullable: true })
  keyCiphertext: Buffer | null;

  /** HMAC-SHA256 of the stored key under a key derived from DATA_KEY: uniqueness per product and exact lookup. */
  @Column({ name: 'key_hash', type: 'bytea', nullable: true })
  keyHash: Buffer | null;

  /** The key's last 5 characters in clear, for display and the list's search. */
  @Column({ name: 'key_last', type: 'varchar', length: 5, nullable: true })
  keyLast: string | null;

  /** A `MANUAL_` key (docs/product.md §14.1): never listed, never counted. */
  @Column({ name: 'is_manual', type: 'boolean', default: false })
  isManual: boolean;

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

/** The clear last characters kept with a sealed key (of the key as the customer knows it). */
export function keyLastChars(storedKey: string): string {
  return stripManualPrefix(storedKey).slice(-5);
}

/** A manual key as the customer knows it: without its `MANUAL_` prefix. */
export function stripManualPrefix(key: string): string {
  return key.startsWith(MANUAL_KEY_PREFIX) ? key.slice(MANUAL_KEY_PREFIX.length) : key;
}
