import { Inject, Injectable } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { LicenseRepository } from '../license/license.repository';
import { LicenseStockRepository } from '../license/license-stock.repository';
import { ProductRepository } from '../product/product.repository';
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
  /**
   * Under POOL_ALERT_DAYS days or under POOL_ALERT_MIN activations: shown in the warning colour, alerted. Never for a
   * product without voucher codes (none uploaded, redeemed or void): nobody can redeem it yet.
   */
  low: boolean;
  /** Why the pool is low, in words the product card shows; null when it is not. */
  lowReason: string | null;
  /** Redemptions of the product waiting for a key (manual processing): customers a new key goes to first. */
  waitingCustomers: number;
}

/** docs/product.md §20.2 pool forecast: how long each licence-managed product's keys last at the last 7 days' rate. */
@Injectable()
export class PoolForecastService {
  constructor(
    private readonly licenses: LicenseRepository,
    private readonly stock: LicenseStockRepository,
    private readonly activity: RedemptionActivityRepository,
    private readonly products: ProductRepository,
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
    const [available, redeemed, waiting, counts] = await Promise.all([
      this.stock.availablePerProduct(ids),
      this.activity.redeemedPerProductSince(since, ids),
      this.activity.waitingPerProduct(ids),
      this.products.counts(productIds?.length === 1 ? productIds[0] : null),
    ]);
    return products.map((p) => {
      const c = counts.get(p.id);
      const hasCodes = !!c && c.unredeemed + c.redeemed + c.void > 0;
      const forecast = this.forecastOf(p.id, p.name, available.get(p.id) ?? 0, redeemed.get(p.id) ?? 0, hasCodes);
      return { ...forecast, waitingCustomers: waiting.get(p.id) ?? 0 };
    });
  }

  private forecastOf(
    productId: string,
    productName: string,
    availableActivations: number,
    redeemedLast7Days: number,
    hasCodes: boolean,
  ): Omit<PoolForecast, 'waitingCustomers'> {
    // Whole days, rounded down, in integers: available / (redeemed / 7) without a floating-point edge.
    const daysLeft = redeemedLast7Days ? Math.floor((availableActivations * FORECAST_DAYS) / redeemedLast7Days) : null;
    const { poolAlertDays, poolAlertMin } = this.config;
    const lowReason = !hasCodes
      ? null
      : daysLeft !== null && daysLeft < poolAlertDays
        ? `fewer than ${poolAlertDays} days of keys left at the last 7 days' rate (POOL_ALERT_DAYS)`
        : availableActivations < poolAlertMin
          ? `fewer than ${poolAlertMin} activations available (POOL_ALERT_MIN)`
          : null;
    return {
      productId,
      productName,
      availableActivations,
      redeemedLast7Days,
      perDay: Math.round((redeemedLast7Days / FORECAST_DAYS) * 100) / 100,
      daysLeft,
      low: lowReason !== null,
      lowReason,
    };
  }
}
