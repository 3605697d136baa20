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
 * The statistics' reads: redemptions per product and local day from `redemption_day_counts` (kept by every statement
 * that inserts or deletes `redemptions`, days in `stats_settings.time_zone`), never a count of redemptions.
 * A period is whole local days, so it reads about one row per product and day (two days of shards at most).
 * All-time figures per product come from the product's counters (ProductRepository.counts).
 */
@Injectable()
export class StatsRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Makes the day counters count local days of `tz`: when the stored zone differs (TIME_ZONE changed), rebuilds
   * them from the redemptions in one transaction that holds off every redemption meanwhile (SHARE lock: writes
   * wait, reads go on). Answers whether it rebuilt. A fresh database starts in UTC.
   */
  async useTimeZone(tz: string): Promise<boolean> {
    const [current] = await this.database.manager.query(`SELECT time_zone FROM stats_settings`);
    if (current?.time_zone === tz) return false;
    return this.database.transaction(async (db) => {
      await db.query(`LOCK TABLE redemptions IN SHARE MODE`);
      const [locked] = await db.query(`SELECT time_zone FROM stats_settings FOR UPDATE`);
      if (locked.time_zone === tz) return false;
      await db.query(`UPDATE stats_settings SET time_zone = $1`, [tz]);
      await db.query(`DELETE FROM redemption_day_counts`);
      await db.query(
        `INSERT INTO redemption_day_counts (day, product_id, shard, redemptions)
         SELECT (redeemed_at AT TIME ZONE $1)::date, product_id, 0, count(*) FROM redemptions GROUP BY 1, 2`,
        [tz],
      );
      return true;
    });
  }

  /**
   * Folds the per-connection shards of days before yesterday into one row per product and day, and drops the rows
   * that count nothing (days emptied by retention); answers the rows folded. Exact at every moment: one
   * transaction moves the sums.
   */
  async foldPastDays(): Promise<number> {
    const [{ folded }] = await this.database.manager.query(`SELECT fold_redemption_day_counts() AS folded`);
    return folded;
  }

  /** How many milliseconds the database's clock is ahead of `processNow` (this process's clock, read just before). */
  async databaseClockAhead(processNow: number): Promise<number> {
    const [row] = await this.database.manager.query(
      `SELECT extract(epoch FROM clock_timestamp())::float8 * 1000 - $1::float8 AS ms`,
      [processNow],
    );
    return Math.round(row.ms);
  }

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

  /** Redemptions per product within the bounds (local midnights in `tz`), from the day counters. */
  async redemptionsPerProduct(bounds: Bounds & { from: Date; to: Date }, tz: string): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, sum(redemptions)::int AS n FROM redemption_day_counts
        WHERE day >= ($1::timestamptz AT TIME ZONE $3)::date AND day < ($2::timestamptz AT TIME ZONE $3)::date
        GROUP BY product_id`,
      [bounds.from, bounds.to, tz],
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
                          THEN greatest(coalesce((SELECT min(day) FROM redemption_day_counts WHERE redemptions <> 0),
                                                 (SELECT d FROM today)),
                                        (SELECT d FROM today) - ${ALLTIME_CHART_DAYS - 1})
                          ELSE ($1::timestamptz AT TIME ZONE $4)::date END AS first_day,
                     least(CASE WHEN $2::timestamptz IS NULL THEN (SELECT d FROM today)
                                ELSE (($2::timestamptz AT TIME ZONE $4) - interval '1 day')::date END,
                           (SELECT d FROM today)) AS last_day),
            days AS (
              SELECT generate_series(first_day, greatest(last_day, first_day), interval '1 day')::date AS day FROM span)
       SELECT to_char(days.day, 'YYYY-MM-DD') AS date, coalesce(sum(c.redemptions), 0)::int AS count
         FROM days
         LEFT JOIN redemption_day_counts c ON c.day = days.day
        GROUP BY days.day
        ORDER BY days.day`,
      [bounds.from, bounds.to, now, tz],
    );
  }

  /**
   * Order e-mails waiting and given up (the metrics), both through idx_redemptions_status_list (exported,
   * email_status, …), whose leading column the `exported IN (false, true)` turns into two index ranges. Sent e-mails
   * are never counted (all of them, a full scan).
   */
  async orderEmailBacklog(): Promise<{ pending: number; failed: number }> {
    const [row] = await this.database.manager.query(
      `SELECT (SELECT count(*) FROM redemptions WHERE exported IN (false, true) AND email_status = 'pending')::int AS pending,
              (SELECT count(*) FROM redemptions WHERE exported IN (false, true) AND email_status = 'failed')::int AS failed`,
    );
    return row;
  }
}
