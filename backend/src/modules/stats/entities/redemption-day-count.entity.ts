import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Redemptions per local day (in `stats_settings.time_zone`) and product, one row per shard (migration
 * 1763820000000): kept by every statement that inserts or deletes redemptions (issue 26, no triggers); days before
 * yesterday are folded into shard 0.
 */
@Entity({ name: 'redemption_day_counts' })
export class RedemptionDayCount {
  @PrimaryColumn({ type: 'date', primaryKeyConstraintName: 'pk_redemption_day_counts' })
  day: string;

  @PrimaryColumn({ name: 'product_id', type: 'uuid', primaryKeyConstraintName: 'pk_redemption_day_counts' })
  productId: string;

  @PrimaryColumn({ type: 'smallint', primaryKeyConstraintName: 'pk_redemption_day_counts' })
  shard: number;

  @Column({ type: 'bigint', default: 0 })
  redemptions: string;
}
