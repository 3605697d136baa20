import { Check, Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type AccessLinkStatus = 'pending' | 'sent' | 'failed';

/**
 * A sign-in link of the licence centre (docs/product.md §21), and the outbox of its e-mail: the request
 * is committed first, then a job sends it (like the order e-mail and the pool alerts). The job makes the token when
 * it sends (so no token ever waits in clear in the database or the queue) and stores only its SHA-256. Single use
 * (`used_at`), valid until `expires_at` (30 minutes after it was sent). An erasure deletes the address's rows.
 */
@Entity({ name: 'customer_access_links' })
@Unique('uq_customer_access_links_token_hash', ['tokenHash'])
@Check('chk_customer_access_links_status', `status IN ('pending', 'sent', 'failed')`)
@Index('idx_customer_access_links_pending', ['createdAt'], { where: `status = 'pending'` })
@Index('idx_customer_access_links_email', ['email'])
export class CustomerAccessLink {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** The (lower-cased) address the link was sent to and the session it opens is scoped to. */
  @Column({ type: 'varchar', length: 254 })
  email: string;

  /** SHA-256 of the token of the last send; null until the job sends. */
  @Column({ name: 'token_hash', type: 'bytea', nullable: true })
  tokenHash: Buffer | null;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @Column({ type: 'varchar', length: 20, default: 'pending' })
  status: AccessLinkStatus;

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
