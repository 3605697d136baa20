import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AdminUser } from './admin-user.entity';

/**
 * One attempt of a rate-limited account call (docs/product.md §18.5): `kind` 'secret-check' (change-password, 2FA
 * setup/enable/disable; `outcome` pending → failure, a success deletes the row) or 'test-email' (kept).
 */
@Entity({ name: 'admin_attempts' })
@Index('idx_admin_attempts_user_kind', ['adminUserId', 'kind', 'createdAt'])
export class AdminAttempt {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId: string;

  @ManyToOne(() => AdminUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'admin_attempts_admin_user_id_fkey' })
  adminUser?: AdminUser;

  @Column({ type: 'varchar', length: 30 })
  kind: string;

  @Column({ type: 'varchar', length: 10, default: 'pending' })
  outcome: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
