import { Column, CreateDateColumn, Entity, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { AdminUser } from './admin-user.entity';

/**
 * A two-factor recovery code, stored as the SHA-256 of its normalised text (the codes carry 80 random bits,
 * so a fast hash is enough and an exact lookup stays one index probe). `used_at` set = spent: a code signs in once.
 */
@Entity({ name: 'admin_recovery_codes' })
@Unique('uq_admin_recovery_codes_user_hash', ['adminUserId', 'codeHash'])
export class AdminRecoveryCode {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId: string;

  @ManyToOne(() => AdminUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'admin_recovery_codes_admin_user_id_fkey' })
  adminUser?: AdminUser;

  @Column({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ name: 'used_at', type: 'timestamptz', nullable: true })
  usedAt: Date | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
