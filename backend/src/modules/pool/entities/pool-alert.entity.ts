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
} from 'typeorm';
import { AdminUser } from '../../auth/entities/admin-user.entity';
import { Product } from '../../product/entities/product.entity';

export type PoolAlertStatus = 'pending' | 'sent' | 'failed';

/**
 * The outbox of the low-pool e-mails (docs/product.md §20.2): one row per product, admin and day, so the unique
 * constraint is the "one alert per product per day" rule whatever instance or job checks. The forecast's
 * figures are kept as they were when the alert was raised: the e-mail says what the check saw.
 */
@Entity({ name: 'pool_alerts' })
@Unique('uq_pool_alerts_product_admin_day', ['productId', 'adminUserId', 'alertDay'])
@Check('chk_pool_alerts_status', `status IN ('pending', 'sent', 'failed')`)
@Index('idx_pool_alerts_pending', ['createdAt'], { where: `status = 'pending'` })
@Index('idx_pool_alerts_admin_user', ['adminUserId'])
export class PoolAlert {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'product_id', type: 'uuid' })
  productId: string;

  @ManyToOne(() => Product, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'product_id', foreignKeyConstraintName: 'pool_alerts_product_id_fkey' })
  product?: Product;

  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId: string;

  @ManyToOne(() => AdminUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'pool_alerts_admin_user_id_fkey' })
  adminUser?: AdminUser;

  /** The day of the alert in the service's time zone (`TZ`). */
  @Column({ name: 'alert_day', type: 'date' })
  alertDay: string;

  @Column({ type: 'varchar', length: 254 })
  recipient: string;

  @Column({ name: 'product_name', type: 'varchar', length: 255 })
  productName: string;

  @Column({ name: 'available_activations', type: 'int' })
  availableActivations: number;

  @Column({ name: 'redeemed_last_7_days', type: 'int' })
  redeemedLast7Days: number;

  @Column({ name: 'days_left', type: 'int', nullable: true })
  daysLeft: number | null;

  /** Redemptions of the product waiting for a key when the alert was written. */
  @Column({ name: 'waiting_customers', type: 'int', default: 0 })
  waitingCustomers: number;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: PoolAlertStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  /** A worker's claim while it sends; after a failed attempt, the time of that attempt (the sweep's clock). */
  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'sent_at', type: 'timestamptz', nullable: true })
  sentAt: Date | null;
}
