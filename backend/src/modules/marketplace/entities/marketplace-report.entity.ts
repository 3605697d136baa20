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
import { MarketplaceConnection } from './marketplace-connection.entity';

/** `redemption`: POST /redemptions; `refund`: POST /refunds; `recheck`: the live check again, after none answered. */
export type MarketplaceReportKind = 'redemption' | 'refund' | 'recheck';
export type MarketplaceReportStatus = 'pending' | 'acked' | 'dead';

/**
 * The report outbox (docs/product.md §24.7): one row per redemption (and per refund, per re-check) of a connected
 * product, sent by a job with the redemption id as Idempotency-Key, retried with doubling backoff, dead after the retry
 * window.
 */
@Entity({ name: 'marketplace_reports' })
@Unique('uq_marketplace_reports_kind_redemption', ['kind', 'redemptionId'])
@Check('chk_marketplace_reports_kind', `kind IN ('redemption', 'refund', 'recheck')`)
@Check('chk_marketplace_reports_status', `status IN ('pending', 'acked', 'dead')`)
@Index('idx_marketplace_reports_due', ['nextAttemptAt'], { where: `status = 'pending'` })
@Index('idx_marketplace_reports_connection_code', ['connectionId', 'code'])
export class MarketplaceReport {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_marketplace_reports' })
  id: string;

  @Column({ name: 'connection_id', type: 'uuid' })
  connectionId: string;

  @ManyToOne(() => MarketplaceConnection, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'connection_id', foreignKeyConstraintName: 'marketplace_reports_connection_id_fkey' })
  connection?: MarketplaceConnection;

  @Column({ type: 'varchar', length: 20 })
  kind: MarketplaceReportKind;

  @Column({ name: 'redemption_id', type: 'uuid' })
  redemptionId: string;

  @Column({ type: 'varchar', length: 100 })
  code: string;

  @Column({ name: 'external_ref', type: 'varchar', length: 200 })
  externalRef: string;

  @Column({ name: 'redeemed_at', type: 'timestamptz' })
  redeemedAt: Date;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: MarketplaceReportStatus;

  @Column({ type: 'int', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'acked_at', type: 'timestamptz', nullable: true })
  ackedAt: Date | null;
}
