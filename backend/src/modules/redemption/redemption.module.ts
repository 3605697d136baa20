import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { GeoModule } from '../geo/geo.module';
import { LicenseModule } from '../license/license.module';
import { RedemptionAdminController, RedemptionMaintenanceController } from './redemption-admin.controller';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedemptionAdminService } from './redemption-admin.service';
import { RedemptionListRepository } from './redemption-list.repository';
import { RedemptionListService } from './redemption-list.service';
import { RedemptionController } from './redemption.controller';
import { RedemptionRepository } from './redemption.repository';
import { RedemptionMailOutboxRepository } from './redemption-mail-outbox.repository';
import { RedemptionRetentionRepository } from './redemption-retention.repository';
import { RedemptionActivityRepository } from './redemption-activity.repository';
import { RedemptionService } from './redemption.service';
import { RefundListener } from './refund.listener';
import { BackorderListener } from './backorder.listener';
import { RedemptionRetention } from './redemption.retention';
import { AttemptsModule } from '../attempts/attempts.module';
import { CodeGuessingService } from './code-guessing.service';
import { RedeemRateLimitGuard } from './redeem-rate-limit.guard';
import { OrderEmailResendService } from './order-email-resend.service';
import { CustomerDataRepository } from './customer-data.repository';
import { RiskRefusal } from './risk-refusal';
import { RedemptionReviewController } from './redemption-review.controller';
import { RedemptionReviewRepository } from './redemption-review.repository';
import { RedemptionReviewService } from './redemption-review.service';

@Module({
  imports: [AttemptsModule, GeoModule, LicenseModule, AuthModule],
  controllers: [
    RedemptionController,
    RedemptionAdminController,
    RedemptionMaintenanceController,
    RedemptionReviewController,
  ],
  providers: [
    RedemptionRepository,
    RedemptionMailOutboxRepository,
    RedemptionRetentionRepository,
    RedemptionActivityRepository,
    RedemptionListRepository,
    RedemptionService,
    RedemptionListService,
    RedemptionAdminService,
    PoolAssignmentService,
    CodeGuessingService,
    RedeemRateLimitGuard,
    OrderEmailResendService,
    CustomerDataRepository,
    RedemptionRetention,
    RefundListener,
    BackorderListener,
    RiskRefusal,
    RedemptionReviewRepository,
    RedemptionReviewService,
  ],
  exports: [
    // The licence centre (customer-centre module): the customer's data, resend, and the public routes' defences.
    CustomerDataRepository,
    OrderEmailResendService,
    CodeGuessingService,
    RedeemRateLimitGuard,
    RedemptionRepository,
    RedemptionMailOutboxRepository,
    RedemptionRetentionRepository,
    RedemptionActivityRepository,
    RedemptionListRepository,
    RedemptionService,
    PoolAssignmentService,
    // The metrics module: `redemptions_held`.
    RedemptionReviewRepository,
  ],
})
export class RedemptionModule {}
