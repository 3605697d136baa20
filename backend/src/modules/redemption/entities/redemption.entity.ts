import { Column, Entity, JoinColumn, ManyToOne, OneToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Product } from '../../product/entities/product.entity';
import { VoucherCode } from '../../voucher/entities/voucher-code.entity';
import { Customer } from './customer.entity';

export type EmailStatus = 'pending' | 'sent' | 'failed';

@Entity({ name: 'redemptions' })
export class Redemption {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'voucher_code_id', type: 'uuid', unique: true })
  voucherCodeId: string;

  @OneToOne(() => VoucherCode, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'voucher_code_id' })
  voucherCode?: VoucherCode;

  @Column({ name: 'customer_id', type: 'uuid' })
  customerId: string;

  @ManyToOne(() => Customer, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'customer_id' })
  customer?: Customer;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id' })
  product?: Product;

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

  @Column({ name: 'email_last_attempt_at', type: 'timestamptz', nullable: true })
  emailLastAttemptAt: Date | null;

  @Column({ name: 'redeemed_at', type: 'timestamptz', default: () => 'now()' })
  redeemedAt: Date;

  @Column({ type: 'boolean', default: false })
  exported: boolean;

  @Column({ name: 'exported_at', type: 'timestamptz', nullable: true })
  exportedAt: Date | null;
}
