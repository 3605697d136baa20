import { BadRequestException, Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { NO_COUNTS, ProductRepository } from '../product/product.repository';
import { isStatsPeriod, PERIOD_LABELS, STATS_PERIODS, StatsPeriod } from './stats.periods';
import { StatsRepository } from './stats.repository';

export interface StatsView {
  period: StatsPeriod;
  totalRedemptions: number;
  activeVouchers: number;
  /** Codes voided by refunds (docs/product.md §19.3): not active, counted apart. */
  voidVouchers: number;
  timeRange: string;
  from: string | null;
  to: string | null;
  timeZone: string;
  productStats: Array<{
    productId: string;
    productName: string;
    activeCodes: number;
    redeemedCodes: number;
    voidCodes: number;
  }>;
  dailyRedemptions: Array<{ date: string; count: number }>;
}

@Injectable()
export class StatsService implements OnModuleInit {
  constructor(
    private readonly redemptionStats: StatsRepository,
    private readonly products: ProductRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** The day counters count the configured zone's days (rebuilt once when TIME_ZONE changed). */
  async onModuleInit(): Promise<void> {
    await this.redemptionStats.useTimeZone(this.config.timeZone);
  }

  /**
   * Redemptions in the period (total, per product, per local day) and the current stock of unredeemed
   * codes. Counts are redemption rows: a deleted redemption drops out of the statistics. Every figure is read
   * from the counters (product_counts, redemption_day_counts): a handful of rows whatever the data's size.
   */
  async stats(period: string): Promise<StatsView> {
    if (!isStatsPeriod(period)) {
      throw new BadRequestException(`Unknown period "${period}". Use one of: ${STATS_PERIODS.join(', ')}.`);
    }
    // A redemption counts on the database's day (its `now()` stamps it): the period's "now" is the Clock's, moved
    // by how far the database's clock is from this process's, so both agree when the two clocks do not
    // (docs/product.md §3.2).
    const now = new Date(this.clock.now().getTime() + (await this.redemptionStats.databaseClockAhead(Date.now())));
    const tz = this.config.timeZone;
    const bounds = period === 'alltime' ? { from: null, to: null } : await this.redemptionStats.bounds(period, now, tz);

    const [products, counts, inPeriod, daily] = await Promise.all([
      this.products.findAll(),
      this.products.counts(),
      bounds.from && bounds.to
        ? this.redemptionStats.redemptionsPerProduct({ from: bounds.from, to: bounds.to }, tz)
        : Promise.resolve(undefined),
      this.redemptionStats.daily(bounds, now, tz),
    ]);

    const productStats = products.map((p) => {
      const c = counts.get(p.id) ?? NO_COUNTS;
      return {
        productId: p.id,
        productName: p.name,
        activeCodes: c.unredeemed,
        redeemedCodes: inPeriod ? (inPeriod.get(p.id) ?? 0) : c.redemptions,
        voidCodes: c.void,
      };
    });
    return {
      period,
      totalRedemptions: productStats.reduce((sum, p) => sum + p.redeemedCodes, 0),
      activeVouchers: productStats.reduce((sum, p) => sum + p.activeCodes, 0),
      voidVouchers: productStats.reduce((sum, p) => sum + p.voidCodes, 0),
      timeRange: PERIOD_LABELS[period],
      from: bounds.from?.toISOString() ?? null,
      to: bounds.to?.toISOString() ?? null,
      timeZone: tz,
      productStats,
      dailyRedemptions: daily,
    };
  }
}
