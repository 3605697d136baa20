import { Global, Module } from '@nestjs/common';
import { ProductModule } from '../product/product.module';
import { RedeemCheck } from '../redemption/redeem-check';
import { VoucherModule } from '../voucher/voucher.module';
import { MarketplaceCheckService } from './marketplace-check.service';
import { MarketplaceConnectionService } from './marketplace-connection.service';
import { MarketplaceInboundService } from './marketplace-inbound.service';
import { MarketplaceJobs } from './marketplace-jobs';
import { MarketplaceLinks } from './marketplace-links';
import { MarketplaceMetrics } from './marketplace-metrics';
import { MarketplacePullService } from './marketplace-pull.service';
import { MarketplaceReportRepository } from './marketplace-report.repository';
import { MarketplaceReportService } from './marketplace-report.service';
import { MarketplaceReconcile } from './marketplace-reconcile';
import { MarketplaceReconciliation } from './marketplace-reconciliation';
import { RedemptionModule } from '../redemption/redemption.module';
import { MarketplaceController, MarketplaceEventsController } from './marketplace.controller';
import { MarketplaceListener } from './marketplace.listener';
import { MarketplaceRepository } from './marketplace.repository';

/**
 * Marketplace connections (docs/product.md §24, docs/marketplaces.md): the admin API, signed inbound events and the
 * pull (codes in through the voucher module's upload, refunds through its void), the live check at redeem and the
 * report outbox. Global only to provide `RedeemCheck` to the redemption module, which imports nothing of this one.
 */
@Global()
@Module({
  imports: [ProductModule, VoucherModule, RedemptionModule],
  controllers: [MarketplaceController, MarketplaceEventsController],
  providers: [
    MarketplaceRepository,
    MarketplaceReportRepository,
    MarketplaceLinks,
    MarketplaceMetrics,
    MarketplaceCheckService,
    { provide: RedeemCheck, useExisting: MarketplaceCheckService },
    MarketplaceConnectionService,
    MarketplaceInboundService,
    MarketplaceReportService,
    MarketplacePullService,
    MarketplaceReconcile,
    MarketplaceReconciliation,
    MarketplaceListener,
    MarketplaceJobs,
  ],
  exports: [RedeemCheck],
})
export class MarketplaceModule {}
