import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Product } from '../../product/entities/product.entity';

@Entity({ name: 'voucher_codes' })
@Unique('uq_voucher_codes_code', ['code'])
// Indexes TypeORM cannot declare (a column's sort order, GIN operator classes); built by migration 1763700000010.
// Newest-first pages per product: (product_id, seq DESC), and the same WHERE NOT is_redeemed.
@Index('idx_voucher_codes_product_seq', { synchronize: false })
@Index('idx_voucher_codes_unredeemed_seq', { synchronize: false })
// The redeemed tab: (product_id, redeemed_at DESC, seq DESC) WHERE is_redeemed.
@Index('idx_voucher_codes_redeemed', { synchronize: false })
// Substring search: GIN (code gin_trgm_ops).
@Index('idx_voucher_codes_code_trgm', { synchronize: false })
export class VoucherCode {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 100 })
  code: string;

  /** Insertion order: lists page newest first by it, and uploads append to its indexes instead of writing at random. */
  @Column({ type: 'bigint', generated: 'identity', generatedIdentity: 'BY DEFAULT' })
  seq: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'voucher_codes_product_id_fkey' })
  product?: Product;

  @Column({ name: 'is_redeemed', type: 'boolean', default: false })
  isRedeemed: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'redeemed_at', type: 'timestamptz', nullable: true })
  redeemedAt: Date | null;
}
