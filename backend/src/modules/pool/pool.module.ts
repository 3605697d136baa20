import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LicenseModule } from '../license/license.module';
import { MailModule } from '../mail/mail.module';
import { ProductModule } from '../product/product.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { PoolChecks } from './pool-checks';
import { PoolJobs } from './pool.job';
import { PoolListener } from './pool.listener';
import { PoolAlertRepository } from './pool-alert.repository';
import { PoolAlertService } from './pool-alert.service';
import { PoolController } from './pool.controller';
import { PoolForecastService } from './pool-forecast.service';

/**
 * The licence pool forecast and its low-pool alerts (docs/product.md §20.2); its jobs (`PoolJobs`), and the checks
 * the redemptions' events ask for (`PoolListener`).
 */
@Module({
  imports: [AuthModule, LicenseModule, MailModule, ProductModule, RedemptionModule],
  controllers: [PoolController],
  providers: [PoolAlertRepository, PoolForecastService, PoolAlertService, PoolJobs, PoolChecks, PoolListener],
  exports: [PoolAlertService, PoolForecastService],
})
export class PoolModule {}
