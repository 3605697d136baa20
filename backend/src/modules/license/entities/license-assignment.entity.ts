import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryColumn,
  PrimaryGeneratedColumn,
} from 'typeorm';
import { Redemption } from '../../redemption/entities/redemption.entity';
import { LicenseKey } from './license-key.entity';

@Entity({ name: 'license_assignments' })
// The primary key (license_key_id, id) also finds a key's assignments (migration 1763846000000); the redemption's
// cannot lead it, as it is set to NULL when the redemption is deleted.
@Index('idx_license_assignments_redemption', ['redemptionId'])
export class LicenseAssignment {
  @PrimaryColumn({ name: 'license_key_id', type: 'uuid', primaryKeyConstraintName: 'license_assignments_pkey' })
  licenseKeyId: string;

  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'license_assignments_pkey' })
  id: string;

  @ManyToOne(() => LicenseKey, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'license_key_id', foreignKeyConstraintName: 'license_assignments_license_key_id_fkey' })
  licenseKey?: LicenseKey;

  /** Kept (set to null) when the redemption is deleted, so a key a customer has seen is never handed out again. */
  @Column({ name: 'redemption_id', type: 'uuid', nullable: true })
  redemptionId: string | null;

  @ManyToOne(() => Redemption, { onDelete: 'SET NULL' })
  @JoinColumn({ name: 'redemption_id', foreignKeyConstraintName: 'license_assignments_redemption_id_fkey' })
  redemption?: Redemption;

  @CreateDateColumn({ name: 'assigned_at', type: 'timestamptz' })
  assignedAt: Date;
}
