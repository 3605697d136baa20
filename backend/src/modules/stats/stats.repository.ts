import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { PERIOD_BOUNDS_SQL, StatsPeriod } from './stats.periods';

export interface Bounds {
  from: Date | null;
  to: Date | null;
}

/** The all-time chart is capped so it stays a chart, not a multi-year table. */
const ALLTIME_CHART_DAYS = 366;

/*
 * The statistics' reads of `redemptions` (owned by the redemption module, which has no repository yet to
 * ask): counts per product and per local day over idx_redemptions_product_redeemed / idx_redemptions_redeemed_at.
 * Products and code stock come from their owners (ProductService, VoucherCodeRepository).
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * A period's [from, to) as instants: local (wall-clock) bounds in `tz` converted back, which keeps days
   * right across DST changes.
   */
  async bounds(period: Exclude<StatsPeriod, 'alltime'>, now: Date, tz: string): Promise<Bounds> {
    const [lo, hi] = PERIOD_BOUNDS_SQL[period];
    const [row] = await this.database.manager.query(
      `SELECT (${lo}) AT TIME ZONE $2 AS "from", (${hi}) AT TIME ZONE $2 AS "to"
         FROM (SELECT date_trunc('day', $1::timestamptz AT TIME ZONE $2) AS d,
                      date_trunc('month', $1::timestamptz AT TIME ZONE $2) AS m) t`,
      [now, tz],
    );
    return { from: row.from, to: row.to };
  }

  /** Redemptions per product within the bounds (all time when both are null). */
  async redemptionsPerProduct(bounds: Bounds): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, count(*)::int AS n FROM redemptions
        WHERE ($1::timestamptz IS NULL OR redeemed_at >= $1) AND ($2::timestamptz IS NULL OR redeemed_at < $2)
        GROUP BY product_id`,
      [bounds.from, bounds.to],
    );
    return new Map(rows.map((r) => [r.product_id, r.n]));
  }

  /**
   * One entry per local day of the period (zero days included), up to today. All time: from the first
   * redemption's day, at most the last ALLTIME_CHART_DAYS days.
   */
  daily(bounds: Bounds, now: Date, tz: string): Promise<Array<{ date: string; count: number }>> {
    return this.database.manager.query(
      `WITH today AS (SELECT date_trunc('day', $3::timestamptz AT TIME ZONE $4)::date AS d),
            span AS (
              SELECT CASE WHEN $1::timestamptz IS NULL
                          THEN greatest(coalesce((SELECT min(redeemed_at) FROM redemptions) AT TIME ZONE $4, (SELECT d FROM today))::date,
                                        (SELECT d FROM today) - ${ALLTIME_CHART_DAYS - 1})
                          ELSE ($1::timestamptz AT TIME ZONE $4)::date END AS first_day,
                     least(CASE WHEN $2::timestamptz IS NULL THEN (SELECT d FROM today)
                                ELSE (($2::timestamptz AT TIME ZONE $4) - interval '1 day')::date END,
                           (SELECT d FROM today)) AS last_day),
            days AS (
              SELECT generate_series(first_day, greatest(last_day, first_day), interval '1 day')::date AS day FROM span)
       SELECT to_char(days.day, 'YYYY-MM-DD') AS date, count(r.id)::int AS count
         FROM days
         LEFT JOIN redemptions r
                ON r.redeemed_at >= (days.day::timestamp AT TIME ZONE $4)
               AND r.redeemed_at < ((days.day + 1)::timestamp AT TIME ZONE $4)
        GROUP BY days.day
        ORDER BY days.day`,
      [bounds.from, bounds.to, now, tz],
    );
  }
}
