import { Column, CreateDateColumn, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'security_audit_log' })
@Index('idx_security_audit_log_created', ['createdAt'])
@Index('idx_security_audit_log_user', ['adminUserId', 'createdAt'])
// Failed logins per address group (an IPv4 address, an IPv6 /64): the login IP block's count (migration 1763836000100).
@Index('idx_security_audit_log_ip_group', ['ipGroup', 'createdAt'], { where: 'NOT success' })
// A redemption's history (migration 1763822000000): rows naming one resource, and the ids of bulk actions, a GIN
// index TypeORM cannot declare: USING gin ((details -> 'redemptionIds') jsonb_path_ops) WHERE details ? 'redemptionIds'.
@Index('idx_security_audit_log_resource', ['resourceId', 'createdAt'], { where: 'resource_id IS NOT NULL' })
@Index('idx_security_audit_log_redemption_ids', { synchronize: false })
// The rows of one redemption (migration 1796190468411).
@Index('idx_security_audit_log_redemption', ['redemptionId', 'createdAt'], { where: 'redemption_id IS NOT NULL' })
export class SecurityAuditLog {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  /** Kept as a plain id (no foreign key) so the trail outlives the user it names. */
  @Column({ name: 'admin_user_id', type: 'uuid', nullable: true })
  adminUserId: string | null;

  @Column({ type: 'varchar', length: 100 })
  action: string;

  @Column({ type: 'varchar', length: 100, nullable: true })
  resource: string | null;

  @Column({ name: 'resource_id', type: 'varchar', length: 100, nullable: true })
  resourceId: string | null;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, nullable: true })
  ipAddress: string | null;

  /**
   * The unit the login IP block counts (docs/security.md): the address itself for IPv4, its /64 for IPv6
   * (`addressGroup`), kept only on the rows that block counts (failed sign-ins, address-counted.ts); null on any
   * other row, without a valid address, after an erasure and on rows written before the column existed.
   */
  @Column({ name: 'ip_group', type: 'varchar', length: 45, nullable: true })
  ipGroup: string | null;

  @Column({ name: 'user_agent', type: 'varchar', length: 500, nullable: true })
  userAgent: string | null;

  /**
   * The redemption the row is about, for its history: set on the events about one redemption (`resource` redemption;
   * a bulk action lists its redemptions in `details.redemptionIds` instead). A plain id: the history outlives it.
   */
  @Column({ name: 'redemption_id', type: 'uuid', nullable: true })
  redemptionId: string | null;

  @Column({ type: 'boolean' })
  success: boolean;

  @Column({ type: 'jsonb', nullable: true })
  details: Record<string, unknown> | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
