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
import { RedemptionRetentionRepository } from './redemption-retention.repository';
import { RedemptionService } from './redemption.service';
import { attemptStoreProvider } from './attempt-store';
import { CodeGuessingService } from './code-guessing.service';
import { RedeemRateLimitGuard } from './redeem-rate-limit.guard';

@Module({
  imports: [
    GeoModule,
    LicenseModule,
    AuthModule,
  ],
  controllers: [RedemptionController, RedemptionAdminController, RedemptionMaintenanceController],
  providers: [
    RedemptionRepository,
    RedemptionRetentionRepository,
    RedemptionListRepository,
    RedemptionService,
    RedemptionListService,
    RedemptionAdminService,
    PoolAssignmentService,
    attemptStoreProvider,
    CodeGuessingService,
    RedeemRateLimitGuard,
  ],
  exports: [RedemptionRepository, RedemptionRetentionRepository, RedemptionListRepository, RedemptionService, PoolAssignmentService],
})
export class RedemptionModule {}
