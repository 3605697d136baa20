import { Check, Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { WebhookEndpoint } from './webhook-endpoint.entity';

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/**
 * The webhook outbox: one row per event and endpoint, committed before its job is queued. The job claims it
 * (`claimed_until`), posts it, and either marks it delivered or schedules the next attempt (`next_attempt_at`,
 * exponential backoff) until WEBHOOK_RETRY_HOURS after it was created; then it is failed.
 */
@Entity({ name: 'webhook_deliveries' })
@Check('chk_webhook_deliveries_status', `status IN ('pending', 'delivered', 'failed')`)
// The delivery log of an endpoint, newest first (a backward scan).
@Index('idx_webhook_deliveries_endpoint_created', ['endpointId', 'createdAt'])
// The sweep reads only pending rows that are due.
@Index('idx_webhook_deliveries_due', ['nextAttemptAt'], { where: `status = 'pending'` })
export class WebhookDelivery {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'endpoint_id', type: 'uuid' })
  endpointId: string;

  @ManyToOne(() => WebhookEndpoint, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'endpoint_id', foreignKeyConstraintName: 'webhook_deliveries_endpoint_id_fkey' })
  endpoint?: WebhookEndpoint;

  @Column({ type: 'varchar', length: 64 })
  event: string;

  @Column({ type: 'jsonb' })
  payload: Record<string, unknown>;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: WebhookDeliveryStatus;

  @Column({ type: 'integer', default: 0 })
  attempts: number;

  @Column({ name: 'next_attempt_at', type: 'timestamptz', default: () => 'now()' })
  nextAttemptAt: Date;

  @Column({ name: 'claimed_until', type: 'timestamptz', nullable: true })
  claimedUntil: Date | null;

  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus: number | null;

  /** The receiver's answer, at most 1 KB of it. */
  @Column({ name: 'response_body', type: 'varchar', length: 1024, nullable: true })
  responseBody: string | null;

  @Column({ name: 'last_error', type: 'varchar', length: 500, nullable: true })
  lastError: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'delivered_at', type: 'timestamptz', nullable: true })
  deliveredAt: Date | null;
}
