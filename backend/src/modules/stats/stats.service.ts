import { BadRequestException, Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { ProductRepository } from '../product/product.repository';
import { VoucherCodeRepository } from '../voucher/voucher-code.repository';
import { isStatsPeriod, PERIOD_LABELS, STATS_PERIODS, StatsPeriod } from './stats.periods';
import { StatsRepository } from './stats.repository';

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

@Injectable()
export class StatsService {
  constructor(
    private readonly redemptionStats: StatsRepository,
    private readonly products: ProductRepository,
    private readonly codes: VoucherCodeRepository,
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
    const bounds = period === 'alltime' ? { from: null, to: null } : await this.redemptionStats.bounds(period, now, tz);

    const [products, stock, redeemed, daily] = await Promise.all([
      this.products.findAll(),
      this.codes.unredeemedByProduct(),
      this.redemptionStats.redemptionsPerProduct(bounds),
      this.redemptionStats.daily(bounds, now, tz),
    ]);

    const productStats = products.map((p) => ({
      productId: p.id,
      productName: p.name,
      activeCodes: stock.get(p.id) ?? 0,
      redeemedCodes: redeemed.get(p.id) ?? 0,
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
}
