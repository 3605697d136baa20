import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn } from 'typeorm';

/**
 * A receiver registered by an admin (docs/product.md §20.4). The signing secret is sealed under DATA_KEY like licence keys
 * (`DataCipher`): it is shown once when the endpoint is created and only opened to sign a delivery.
 */
@Entity({ name: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ type: 'varchar', length: 2000 })
  url: string;

  /** Subscribed event names (`WEBHOOK_EVENTS`); the emit's insert-select filters on `$1 = ANY(events)`. */
  @Column({ type: 'text', array: true })
  events: string[];

  @Column({ name: 'secret_ciphertext', type: 'bytea' })
  secretCiphertext: Buffer;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  /** Failed attempts in a row since the last success (any delivery of the endpoint); a success resets it. */
  @Column({ name: 'consecutive_failures', type: 'int', default: 0 })
  consecutiveFailures: number;

  /** When the current run of failures began (null after a success). */
  @Column({ name: 'failing_since', type: 'timestamptz', nullable: true })
  failingSince: Date | null;

  /** Set by the circuit breaker (docs/product.md §20.4): no attempt is made until Resume. */
  @Column({ name: 'paused_at', type: 'timestamptz', nullable: true })
  pausedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
