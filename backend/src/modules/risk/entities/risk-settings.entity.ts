import { Check, Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/**
 * One row: the risk rules (docs/product.md §25.1) as `GET /api/risk/rules` answers them, all off until an admin sets
 * them.
 */
@Entity({ name: 'risk_settings' })
@Check('chk_risk_settings_one_row', 'id = 1')
export class RiskSettings {
  @PrimaryColumn({ type: 'smallint', default: 1, primaryKeyConstraintName: 'pk_risk_settings' })
  id: number;

  @Column({ type: 'jsonb' })
  rules: Record<string, unknown>;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt: Date;
}
