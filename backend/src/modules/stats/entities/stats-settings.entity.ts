import { Check, Column, Entity, PrimaryColumn } from 'typeorm';

/** One row: the zone whose local days `redemption_day_counts` counts (kept equal to TIME_ZONE by StatsService). */
@Entity({ name: 'stats_settings' })
@Check('chk_stats_settings_one_row', 'id = 1')
export class StatsSettings {
  @PrimaryColumn({ type: 'smallint', default: 1, primaryKeyConstraintName: 'pk_stats_settings' })
  id: number;

  @Column({ name: 'time_zone', type: 'text', default: 'UTC' })
  timeZone: string;
}
