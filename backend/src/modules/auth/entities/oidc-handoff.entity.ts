import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AdminUser } from './admin-user.entity';

/**
 * A single sign-on hand-off (docs/auth.md "Hand-over to the console"): the one-time code the callback sends the
 * console, bound to the browser that came back from the provider by a cookie. Both are stored as SHA-256 (32 random
 * bytes each); the row is spent (deleted) by its first exchange and worthless after `expires_at` (60 s). `details`
 * are the sign-in's facts for the `login.success` audit row written when the session opens.
 */
@Entity({ name: 'oidc_handoffs' })
@Index('idx_oidc_handoffs_expires', ['expiresAt'])
export class OidcHandoff {
  @PrimaryColumn({ name: 'code_hash', type: 'varchar', length: 64 })
  codeHash: string;

  @Column({ name: 'browser_hash', type: 'varchar', length: 64 })
  browserHash: string;

  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId: string;

  @ManyToOne(() => AdminUser, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id', foreignKeyConstraintName: 'oidc_handoffs_admin_user_id_fkey' })
  adminUser?: AdminUser;

  @Column({ type: 'jsonb' })
  details: Record<string, unknown>;

  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt: Date;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
