import { Check, Column, Entity, Index, JoinColumn, ManyToOne, OneToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { Product } from '../../product/entities/product.entity';
import { VoucherCode } from '../../voucher/entities/voucher-code.entity';
import { Customer } from './customer.entity';

export type EmailStatus = 'pending' | 'sent' | 'failed';

@Entity({ name: 'redemptions' })
@Unique('uq_redemptions_voucher_code', ['voucherCodeId'])
// One licence per customer e-mail per product (Terms): the redemption statement relies on it to refuse a second.
@Unique('uq_redemptions_customer_product', ['customerId', 'productId'])
@Check('chk_redemptions_email_status', `email_status IN ('pending', 'sent', 'failed')`)
@Check('chk_redemptions_review_decision', `review_decision IN ('approved', 'refused')`)
@Check('chk_redemptions_review_mail_status', `review_mail_status IN ('pending', 'sent', 'failed')`)
// The list pages, (exported, redeemed_at DESC, id) and (exported, email_status, redeemed_at DESC, id): TypeORM
// cannot declare a column's sort order (migration 1763700000000).
@Index('idx_redemptions_list', { synchronize: false })
@Index('idx_redemptions_status_list', { synchronize: false })
// A product's redemptions by time (the pool forecast) and its Redeemed tab's code ids, newest first (read backwards).
@Index('idx_redemptions_product_redeemed', ['productId', 'redeemedAt', 'voucherCodeId'])
// The review queue (docs/product.md §25.2): only the held redemptions.
@Index('idx_redemptions_held', ['heldAt', 'id'], { where: 'held_at IS NOT NULL' })
// The list's name search: GIN ((first_name || ' ' || last_name) gin_trgm_ops) (migration 1763830000000).
@Index('idx_redemptions_full_name_trgm', { synchronize: false })
// A full name's newest page and a name's start: ((lower(first_name || ' ' || last_name)) text_pattern_ops, exported,
// redeemed_at DESC, id) (migration 1763841000000).
@Index('idx_redemptions_name_list', { synchronize: false })
// The redemptions waiting for a key, by product, oldest first: (product_id, redeemed_at, id) WHERE awaiting_license
// (migration 1796192804930).
@Index('idx_redemptions_awaiting_product', { synchronize: false })
export class Redemption {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'voucher_code_id', type: 'uuid' })
  voucherCodeId: string;

  @OneToOne(() => VoucherCode, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'voucher_code_id', foreignKeyConstraintName: 'redemptions_voucher_code_id_fkey' })
  voucherCode?: VoucherCode;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId: string;

  // RESTRICT: deleting a customer never takes a redemption with it (the retention purge, migration 1763700009100).
  @ManyToOne(() => Customer, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'customer_id', foreignKeyConstraintName: 'redemptions_customer_id_fkey' })
  customer?: Customer;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'redemptions_product_id_fkey' })
  product?: Product;

  // What the customer gave with this redemption (docs/product.md §11.6): a later redemption with the same
  // e-mail never changes it. The customer row holds only the e-mail they share.
  @Column({ name: 'first_name', type: 'varchar', length: 50 })
  firstName: string;

  @Column({ name: 'last_name', type: 'varchar', length: 50 })
  lastName: string;

  @Column({ type: 'varchar', length: 20, nullable: true })
  phone: string | null;

  @Column({ name: 'zip_code', type: 'varchar', length: 20, nullable: true })
  zipCode: string | null;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, nullable: true })
  ipAddress: string | null;

  @Column({ type: 'varchar', length: 2, nullable: true })
  country: string | null;

  /**
   * SHA-256 of the redeem page's `Idempotency-Key` (docs/product.md §19.1): a repeat of the same code
   * and e-mail gets a fresh success token only with that key. Null: redeemed without one.
   */
  @Column({ name: 'idempotency_key_hash', type: 'bytea', nullable: true })
  idempotencyKeyHash: Buffer | null;

  @Column({ name: 'email_status', type: 'varchar', length: 20, default: 'pending' })
  emailStatus: EmailStatus;

  /** True while a licence-managed redemption waits for a key (manual processing); its e-mail waits too. */
  @Column({ name: 'awaiting_license', type: 'boolean', default: false })
  awaitingLicense: boolean;

  /** A worker that claims the e-mail holds it until this time; an expired claim is picked up again. */
  @Column({ name: 'email_locked_until', type: 'timestamptz', nullable: true })
  emailLockedUntil: Date | null;

  @Column({ name: 'email_attempts', type: 'int', default: 0 })
  emailAttempts: number;

  /**
   * How often the e-mail was asked for again after it was sent or failed (resends): part of its Message-ID, so a copy
   * sent again after a crash is the same message and a resend a new one (docs/operations.md "Order e-mail delivery").
   */
  @Column({ name: 'email_resends', type: 'int', default: 0 })
  emailResends: number;

  @Column({ name: 'email_last_attempt_at', type: 'timestamptz', nullable: true })
  emailLastAttemptAt: Date | null;

  @Column({ name: 'redeemed_at', type: 'timestamptz', default: () => 'now()' })
  redeemedAt: Date;

  @Column({ type: 'boolean', default: false })
  exported: boolean;

  @Column({ name: 'exported_at', type: 'timestamptz', nullable: true })
  exportedAt: Date | null;

  /** Its code was refunded after redemption (a void request named it): the customer keeps the key (docs/product.md §19.3). */
  @Column({ name: 'refunded_at', type: 'timestamptz', nullable: true })
  refundedAt: Date | null;

  /** Held for review by a risk rule (docs/product.md §25.2): no key, no order e-mail until staff approve it. */
  @Column({ name: 'held_at', type: 'timestamptz', nullable: true })
  heldAt: Date | null;

  /** The rules a held redemption matched, with their evidence: `[{rule, evidence}]`. */
  @Column({ name: 'held_rules', type: 'jsonb', nullable: true })
  heldRules: Array<{ rule: string; evidence: Record<string, unknown> }> | null;

  /** When staff decided a held redemption, and how (docs/product.md §25.3); null: never held, or still waiting. */
  @Column({ name: 'reviewed_at', type: 'timestamptz', nullable: true })
  reviewedAt: Date | null;

  @Column({ name: 'review_decision', type: 'text', nullable: true })
  reviewDecision: 'approved' | 'refused' | null;

  /** The admins were alerted that it waits past the two-hour promise (docs/product.md §25.4): once per case. */
  @Column({ name: 'review_alerted_at', type: 'timestamptz', nullable: true })
  reviewAlertedAt: Date | null;

  /** A refused review's e-mail to the customer (docs/product.md §25.3): pending, sent or failed; null otherwise. */
  @Column({ name: 'review_mail_status', type: 'text', nullable: true })
  reviewMailStatus: 'pending' | 'sent' | 'failed' | null;

  /**
   * The personal data given with it was erased at the customer's request (docs/product.md §21.3): names empty,
   * phone, zip code, IP and country null; code, product, dates and key assignment stay for the accounts.
   */
  @Column({ name: 'erased_at', type: 'timestamptz', nullable: true })
  erasedAt: Date | null;
}
