import { Column, Entity, PrimaryGeneratedColumn } from 'typeorm';

@Entity({ name: 'blocked_ips' })
export class BlockedIp {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'ip_address', type: 'varchar', length: 45, unique: true })
  ipAddress: string;

  @Column({ type: 'varchar', length: 255, nullable: true })
  reason: string | null;

  @Column({ name: 'blocked_at', type: 'timestamptz', default: () => 'now()' })
  blockedAt: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt: Date | null;

  @Column({ name: 'is_active', type: 'boolean', default: true })
  isActive: boolean;
}
