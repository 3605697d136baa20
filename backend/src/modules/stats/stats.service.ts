import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { isStatsPeriod, PERIOD_BOUNDS_SQL, PERIOD_LABELS, STATS_PERIODS, StatsPeriod } from './stats.periods';

export interface StatsView {
  period: StatsPeriod;
  totalRedemptions: number;
  activeVouchers: number;
  timeRange: string;
  from: string | null;
  to: string | null;
  timeZone: string;
  productStats: Array<{ productId: string; productName: string; activeCodes: number; redeemedCodes: number }>;
  dailyRedemptions: Array<{ date: string; count: number }>;
}

/** The all-time chart is capped so it stays a chart, not a multi-year table. */
const ALLTIME_CHART_DAYS = 366;

@Injectable()
export class StatsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Redemptions in the period (total, per product, per local day) and the current stock of unredeemed
   * codes. Counts are redemption rows: a deleted redemption drops out of the statistics.
   */
  async stats(period: string): Promise<StatsView> {
    if (!isStatsPeriod(period)) {
      throw new BadRequestException(`Unknown period "${period}". Use one of: ${STATS_PERIODS.join(', ')}.`);
    }
    const now = this.clock.now();
    const tz = this.config.timeZone;
    const bounds = await this.bounds(period, now, tz);

    const [perProduct, daily] = await Promise.all([
      this.dataSource.query(
        `SELECT p.id, p.name,
                coalesce(v.active, 0)::int AS active,
                coalesce(r.redeemed, 0)::int AS redeemed
           FROM products p
           LEFT JOIN (SELECT product_id, count(*) AS active FROM voucher_codes WHERE NOT is_redeemed GROUP BY product_id) v
                  ON v.product_id = p.id
           LEFT JOIN (SELECT product_id, count(*) AS redeemed FROM redemptions
                       WHERE ($1::timestamptz IS NULL OR redeemed_at >= $1) AND ($2::timestamptz IS NULL OR redeemed_at < $2)
                       GROUP BY product_id) r
                  ON r.product_id = p.id
          ORDER BY p.created_at, p.name`,
        [bounds.from, bounds.to],
      ) as Promise<Array<{ id: string; name: string; active: number; redeemed: number }>>,
      this.daily(bounds, now, tz),
    ]);

    const productStats = perProduct.map((p) => ({
      productId: p.id,
      productName: p.name,
      activeCodes: p.active,
      redeemedCodes: p.redeemed,
    }));
    return {
      period,
      totalRedemptions: productStats.reduce((sum, p) => sum + p.redeemedCodes, 0),
      activeVouchers: productStats.reduce((sum, p) => sum + p.activeCodes, 0),
      timeRange: PERIOD_LABELS[period],
      from: bounds.from?.toISOString() ?? null,
      to: bounds.to?.toISOString() ?? null,
      timeZone: tz,
      productStats,
      dailyRedemptions: daily,
    };
  }

  /** [from, to) as instants; both null for alltime. */
  private async bounds(period: StatsPeriod, now: Date, tz: string): Promise<{ from: Date | null; to: Date | null }> {
    if (period === 'alltime') return { from: null, to: null };
    const [lo, hi] = PERIOD_BOUNDS_SQL[period];
    const [row] = await this.dataSource.query(
      `SELECT (${lo}) AT TIME ZONE $2 AS "from", (${hi}) AT TIME ZONE $2 AS "to"
         FROM (SELECT date_trunc('day', $1::timestamptz AT TIME ZONE $2) AS d,
                      date_trunc('month', $1::timestamptz AT TIME ZONE $2) AS m) t`,
      [now, tz],
    );
    return { from: row.from, to: row.to };
  }

  /**
   * One entry per local day of the period (zero days included), up to today. All time: from the first
   * redemption's day, at most the last 366 days.
   */
  private async daily(
    bounds: { from: Date | null; to: Date | null },
    now: Date,
    tz: string,
  ): Promise<Array<{ date: string; count: number }>> {
    const rows: Array<{ date: string; count: number }> = await this.dataSource.query(
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
    return rows;
  }
}
