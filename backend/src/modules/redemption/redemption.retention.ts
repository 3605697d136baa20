import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { RetentionRegistry } from '../retention/retention.registry';
import { RedemptionRetentionRepository } from './redemption-retention.repository';

/**
 * The redemptions' part of the retention run (docs/product.md §1.5): redemptions after REDEMPTION_RETENTION_DAYS
 * (7 years by default), then the customers left without any redemption and older than the limit. A deleted
 * redemption keeps its voucher code redeemed and its licence assignment (redemption_id set null).
 */
@Injectable()
export class RedemptionRetention implements OnModuleInit {
  constructor(
    private readonly retention: RetentionRegistry,
    private readonly redemptions: RedemptionRetentionRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const days = this.config.redemptionRetentionDays;
    this.retention.deletes('redemptions', (batch) => this.redemptions.deleteOlderThan(days, batch));
    this.retention.deletes('customers', (batch) => this.redemptions.deleteUnusedCustomers(days, batch));
  }
}
