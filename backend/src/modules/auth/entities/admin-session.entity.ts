import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
} from 'typeorm';
import { AdminUser } from './admin-user.entity';

@Entity({ name: 'admin_sessions' })
@Unique('uq_admin_sessions_token', ['token'])
@Unique('uq_admin_sessions_refresh_token', ['refreshToken'])
@Index('idx_admin_sessions_user', ['adminUserId'])
export class AdminSession {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId: string;

  @ManyToOne(() => AdminUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'admin_sessions_admin_user_id_fkey' })
  adminUser?: AdminUser;

  /** Identifier of the access tokens issued for this session (the JWT carries the session id). */
  @Column({ type: 'varchar', length: 128 })
  token: string;

  /** SHA-256 of the current opaque refresh token; rotated on every refresh (spent ones: admin_session_spent_tokens). */
  @Column({ name: 'refresh_token', type: 'varchar', length: 128 })
  refreshToken: string;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, nullable: true })
  ipAddress: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 500, nullable: true })
  userAgent: string | null;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;

  @Column({ name: 'last_used_at', type: 'timestamptz', default: () => 'now()' })
  lastUsedAt: Date;
}
