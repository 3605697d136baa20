import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AdminSession } from './admin-session.entity';

/** A refresh token (SHA-256) a session has spent: presenting any of them again revokes the session. */
@Entity({ name: 'admin_session_spent_tokens' })
@Index('idx_admin_session_spent_tokens_session', ['sessionId'])
export class AdminSessionSpentToken {
  @PrimaryColumn({ name: 'token_hash', type: 'varchar', length: 128 })
  tokenHash: string;

  @Column({ name: 'session_id', type: 'uuid' })
  sessionId: string;

  @ManyToOne(() => AdminSession, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'session_id', foreignKeyConstraintName: 'admin_session_spent_tokens_session_id_fkey' })
  session?: AdminSession;

  @Column({ name: 'spent_at', type: 'timestamptz', default: () => 'now()' })
  spentAt: Date;
}
