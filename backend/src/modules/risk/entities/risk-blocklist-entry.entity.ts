import { Check, Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique } from 'typeorm';

export type BlocklistKind = 'email' | 'domain' | 'address' | 'phone';

/**
 * An e-mail, domain, address or CIDR (kept in `network(inet)` form: `203.0.113.0/24`, `198.51.100.7/32`) or phone
 * the blocklist rule matches; `hits` counts the redemptions it matched.
 */
@Entity({ name: 'risk_blocklist' })
@Unique('uq_risk_blocklist_kind_value', ['kind', 'value'])
@Check('chk_risk_blocklist_kind', `kind IN ('email', 'domain', 'address', 'phone')`)
export class RiskBlocklistEntry {
  @PrimaryGeneratedColumn('uuid', { primaryKeyConstraintName: 'pk_risk_blocklist' })
  id: string;

  @Column({ type: 'text' })
  kind: BlocklistKind;

  @Column({ type: 'text' })
  value: string;

  @Column({ type: 'integer', default: 0 })
  hits: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt: Date;
}
