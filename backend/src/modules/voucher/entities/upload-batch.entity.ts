import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AdminUser } from '../../auth/entities/admin-user.entity';
import { Product } from '../../product/entities/product.entity';

/** `upload`: a file of codes; `void`: a void (refund) file; `before-batches`: a product's codes that came by no upload. */
export type UploadBatchKind = 'upload' | 'void' | 'before-batches';

/**
 * One uploaded file (docs/product.md §20.1, migration 1763823000000): an upload of codes or a void file, with what its load
 * reported. Live figures of its codes are counters (`product_counts`, per batch), never counted here. Every product
 * also has one `before-batches` row whose id is the product's: the batch of codes with no `batch_id` (those from
 * before batches existed, and any added since by another path than an upload).
 */
@Entity({ name: 'upload_batches' })
@Check('chk_upload_batches_kind', `kind IN ('upload', 'void', 'before-batches')`)
@Check('chk_upload_batches_before_batches_id', `kind <> 'before-batches' OR id = product_id`)
@Check('chk_upload_batches_failure', `failure IS NULL OR inserted = 0`)
// A product's batches, newest first (read backwards).
@Index('idx_upload_batches_product', ['productId', 'createdAt', 'id'])
@Index('idx_upload_batches_admin_user', ['adminUserId'])
export class UploadBatch {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_upload_batches' })
  id: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'upload_batches_product_id_fkey' })
  product?: Product;

  @Column({ type: 'varchar', length: 20 })
  kind: UploadBatchKind;

  /** The uploaded file's name (null for `before-batches`). */
  @Column({ name: 'file_name', type: 'varchar', length: 255, nullable: true })
  fileName: string | null;

  /** Who uploaded it (null: `before-batches`, the demo, or the account was deleted since). */
  @Column({ name: 'admin_user_id', type: 'uuid', nullable: true })
  adminUserId: string | null;

  @ManyToOne(() => AdminUser, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'upload_batches_admin_user_id_fkey' })
  adminUser?: AdminUser;

  /** Upload: codes added. Void file: codes voided. `before-batches`: the product's codes when batches began. */
  @Column({ type: 'int', default: 0 })
  inserted: number;

  /** Upload: valid lines whose code existed already (or repeated in the file). Void file: codes already void. */
  @Column({ type: 'int', default: 0 })
  duplicates: number;

  /** Lines that were not a voucher code. */
  @Column({ type: 'int', default: 0 })
  invalid: number;

  /** Void file: codes already redeemed, whose redemption it marked refunded. */
  @Column({ type: 'int', default: 0 })
  refunded: number;

  /** Void file: codes that are not codes of the product. */
  @Column({ type: 'int', default: 0 })
  unknown: number;

  /**
   * Upload: the range of `voucher_codes.seq` its codes took, so its codes are read in order from
   * idx_voucher_codes_product_seq (null when it added none).
   */
  @Column({ name: 'first_seq', type: 'bigint', nullable: true })
  firstSeq: string | null;

  @Column({ name: 'last_seq', type: 'bigint', nullable: true })
  lastSeq: string | null;

  /**
   * Why the upload failed (docs/product.md §20.6): its load began and then failed on the server's side, so it added
   * nothing. Null for every batch that loaded.
   */
  @Column({ type: 'varchar', length: 500, nullable: true })
  failure: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
