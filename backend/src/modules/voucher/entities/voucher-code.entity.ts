import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Product } from '../../product/entities/product.entity';

@Entity({ name: 'voucher_codes' })
// Unique, and the start of a code: (code text_pattern_ops), an operator class TypeORM cannot declare (migration
// 1763847000000: one b-tree for the lookups' equality and the redemption search's prefix).
@Index('uq_voucher_codes_code', { synchronize: false })
// A code is available, redeemed or void (refunded before redemption), never redeemed and void at once.
@Check('chk_voucher_codes_void_unredeemed', 'voided_at IS NULL OR NOT is_redeemed')
// Indexes TypeORM cannot declare (a column's sort order, GIN operator classes); built by migrations 1763700000010
// and 1763810000000. Newest-first pages per product: (product_id, seq DESC); the same WHERE voided_at IS NOT NULL
// (Void tab). No index reads `is_redeemed` or `redeemed_at` (migrations 1763844000000, 1763845000000: the redemption's
// update of its code is heap-only; available and redeemed codes are listed off this row, docs/architecture.md "A
// code's state"); the table keeps a tenth of each page free for that update (fillfactor 90).
@Index('idx_voucher_codes_product_seq', { synchronize: false })
@Index('idx_voucher_codes_void_seq', { synchronize: false })
// Substring search: GIN (product_id, code gin_trgm_ops) (btree_gin: a product's codes containing a term, read with
// its product, migration 1763848000000) WITH (fastupdate = on, gin_pending_list_limit = 1 GB): an upload appends to
// the pending list, merged after it in one pass (migration 1763820000100, VoucherCodeRepository.mergeSearchIndex).
@Index('idx_voucher_codes_code_trgm', { synchronize: false })
// A void file's codes, for its reconciliation (migration 1763823000000): only codes a void file named are in it.
@Index('idx_voucher_codes_void_batch', ['voidBatchId', 'seq'], { where: 'void_batch_id IS NOT NULL' })
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

  /** Set when the code is voided (refunded before redemption, docs/product.md §19.3): never redeemable again (410). */
  @Column({ name: 'voided_at', type: 'timestamptz', nullable: true })
  voidedAt: Date | null;

  /**
   * The upload that brought the code (`upload_batches.id`); NULL: the product's "before batches" batch, whose id is the
   * product's. No foreign key: its check would cost a lookup per uploaded code, and batches go only with their product.
   */
  @Column({ name: 'batch_id', type: 'uuid', nullable: true })
  batchId: string | null;

  /** The void file that voided the code or marked its redemption refunded (`upload_batches.id`, kind `void`). */
  @Column({ name: 'void_batch_id', type: 'uuid', nullable: true })
  voidBatchId: string | null;
}
