import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

/** One row per delivery attempt on one provider (docs/product.md §12.4). */
@Entity({ name: 'email_logs' })
@Index('idx_email_logs_redemption', ['redemptionId'])
@Index('idx_email_logs_created', ['createdAt'])
export class EmailLog {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** No foreign key: e-mail logs are kept 2 years, longer than a deleted redemption. */
  @Column({ name: 'redemption_id', type: 'uuid', nullable: true })
  redemptionId: string | null;

  @Column({ type: 'varchar', length: 50 })
  provider: string;

  @Column({ type: 'varchar', length: 254 })
  recipient: string;

  @Column({ type: 'varchar', length: 500 })
  subject: string;

  @Column({ type: 'varchar', length: 20 })
  status: 'sent' | 'failed';

  @Column({ type: 'text', nullable: true })
  error: string | null;

  @Column({ name: 'message_id', type: 'varchar', length: 255, nullable: true })
  messageId: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
