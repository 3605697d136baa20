import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/**
 * The counting rules' counters: redemptions per subject (the SHA-256 of an e-mail or of an address group) and time
 * bucket (an hour for `emailPerDay`, five minutes for `addressPerHour`). A rule reads at most 24 or 12 rows of its
 * subject by the primary key; `idx_risk_counters_bucket` lets the retention job drop buckets past the last window.
 */
@Entity({ name: 'risk_counters' })
@Index('idx_risk_counters_bucket', ['bucket'])
export class RiskCounter {
  @PrimaryColumn({ type: 'text', primaryKeyConstraintName: 'pk_risk_counters' })
  rule: string;

  @PrimaryColumn({ type: 'bytea', primaryKeyConstraintName: 'pk_risk_counters' })
  subject: Buffer;

  @PrimaryColumn({ type: 'timestamptz', primaryKeyConstraintName: 'pk_risk_counters' })
  bucket: Date;

  @Column({ type: 'integer' })
  count: number;
}
