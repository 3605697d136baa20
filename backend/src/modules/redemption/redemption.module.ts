import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { GeoModule } from '../geo/geo.module';
import { LicenseModule } from '../license/license.module';
import { RedemptionAdminController, RedemptionMaintenanceController } from './redemption-admin.controller';
import { PoolAssignmentService } from './pool-assignment.service';
import { RedemptionAdminService } from './redemption-admin.service';
import { RedemptionListRepository } from './redemption-list.repository';
import { RedemptionListService } from './redemption-list.service';
import { RedemptionController } from './redemption.controller';
import { REDEEM_MESSAGES } from './redemption.errors';
import { RedemptionRepository } from './redemption.repository';
import { RedemptionService } from './redemption.service';
import { RedeemThrottlerGuard } from '../../common/guards/redeem-throttler.guard';

@Module({
  imports: [
    GeoModule,
    LicenseModule,
    ThrottlerModule.forRootAsync({
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) => ({
        throttlers: [{ name: 'redeem', ttl: 60_000, limit: config.redeemRateLimit }],
        errorMessage: REDEEM_MESSAGES.rateLimited,
        skipIf: () => config.redeemRateLimit === 0,
      }),
    }),
  ],
  controllers: [RedemptionController, RedemptionAdminController, RedemptionMaintenanceController],
  providers: [
    RedemptionRepository,
    RedemptionListRepository,
    RedemptionService,
    RedemptionListService,
    RedemptionAdminService,
    PoolAssignmentService,
    RedeemThrottlerGuard,
  ],
  exports: [RedemptionRepository, RedemptionListRepository, RedemptionService, PoolAssignmentService],
})
export class RedemptionModule {}
