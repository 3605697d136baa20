import { Column, CreateDateColumn, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { Redemption } from '../../redemption/entities/redemption.entity';
import { LicenseKey } from './license-key.entity';

@Entity({ name: 'license_assignments' })
@Index('idx_license_assignments_key', ['licenseKeyId'])
@Index('idx_license_assignments_redemption', ['redemptionId'])
export class LicenseAssignment {
  @PrimaryGeneratedColumn('uuid')
  id: string;

  @Column({ name: 'license_key_id', type: 'uuid' })
  licenseKeyId: string;

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
