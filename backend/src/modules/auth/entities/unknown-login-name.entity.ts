import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * Failed sign-ins of a username that has no account (docs/product.md §13.2): counted like
 * `admin_users.failed_login_attempts`/`locked_until`, so such a name locks exactly as an account would and the answers
 * never tell which accounts exist. No account is created; a row idle for a day is deleted by retention.
 */
@Entity({ name: 'unknown_login_names' })
@Index('idx_unknown_login_names_updated', ['updatedAt'])
export class UnknownLoginName {
  /** As typed (usernames are case-sensitive, as the account lookup is). */
  @PrimaryColumn({ type: 'varchar', length: 50 })
  username: string;

  @Column({ name: 'failed_login_attempts', type: 'int', default: 0 })
  failedLoginAttempts: number;

  @Column({ name: 'locked_until', type: 'timestamptz', nullable: true })
  lockedUntil: Date | null;

  /** The last attempt (the Clock's time). */
  @Column({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
