import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import { Product } from '../../product/entities/product.entity';

export const MANUAL_KEY_PREFIX = 'MANUAL_';
export type LicenseType = 'single-user' | 'volume';

@Entity({ name: 'license_keys' })
@Index('uq_license_keys_product_key', ['productId', 'licenseKey'], { unique: true })
export class LicenseKey {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id' })
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
