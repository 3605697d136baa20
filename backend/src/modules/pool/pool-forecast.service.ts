import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { LicenseRepository } from '../license/license.repository';
import { LicenseStockRepository } from '../license/license-stock.repository';
import { RedemptionActivityRepository } from '../redemption/redemption-activity.repository';

/** The forecast window: demand is the redemptions of the last 7 days. */
export const FORECAST_DAYS = 7;
const DAY_MS = 86_400_000;

export interface PoolForecast {
  productId: string;
  productName: string;
  availableActivations: number;
  redeemedLast7Days: number;
  /** Redemptions per day over the window (two decimals). */
  perDay: number;
  /** Whole days the available activations last at `perDay`; null when nothing was redeemed in the window. */
  daysLeft: number | null;
  /** Under POOL_ALERT_DAYS days or under POOL_ALERT_MIN activations: shown in the warning colour, alerted. */
  low: boolean;
}

/** docs/product.md §20.2 pool forecast: how long each licence-managed product's keys last at the last 7 days' rate. */
@Injectable()
export class PoolForecastService {
  constructor(
    private readonly licenses: LicenseRepository,
    private readonly stock: LicenseStockRepository,
    private readonly activity: RedemptionActivityRepository,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Every licence-managed product, or only those given (the check after a redemption). */
  async forecast(productIds?: string[]): Promise<PoolForecast[]> {
    const products = (await this.licenses.licenseManagedProducts()).filter(
      (p) => !productIds || productIds.includes(p.id),
    );
    if (!products.length) return [];
    const ids = products.map((p) => p.id);
    const since = new Date(this.clock.now().getTime() - FORECAST_DAYS * DAY_MS);
    const [available, redeemed] = await Promise.all([
      this.stock.availablePerProduct(ids),
      this.activity.redeemedPerProductSince(since, ids),
    ]);
    return products.map((p) => this.forecastOf(p.id, p.name, available.get(p.id) ?? 0, redeemed.get(p.id) ?? 0));
  }

  private forecastOf(productId: string, productName: string, availableActivations: number, redeemedLast7Days: number) {
    // Whole days, rounded down, in integers: available / (redeemed / 7) without a floating-point edge.
    const daysLeft = redeemedLast7Days ? Math.floor((availableActivations * FORECAST_DAYS) / redeemedLast7Days) : null;
    return {
      productId,
      productName,
      availableActivations,
      redeemedLast7Days,
      perDay: Math.round((redeemedLast7Days / FORECAST_DAYS) * 100) / 100,
      daysLeft,
      low:
        (daysLeft !== null && daysLeft < this.config.poolAlertDays) || availableActivations < this.config.poolAlertMin,
    };
  }
}
