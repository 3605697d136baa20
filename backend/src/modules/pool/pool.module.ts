import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LicenseModule } from '../license/license.module';
import { MailModule } from '../mail/mail.module';
import { ProductModule } from '../product/product.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { PoolJobs } from './pool.job';
import { PoolAlertRepository } from './pool-alert.repository';
import { PoolAlertService } from './pool-alert.service';
import { PoolController } from './pool.controller';
import { PoolForecastService } from './pool-forecast.service';

/** The licence pool forecast and its low-pool alerts (docs/product.md §20.2); its jobs (`PoolJobs`). */
@Module({
  imports: [AuthModule, LicenseModule, MailModule, ProductModule, RedemptionModule],
  controllers: [PoolController],
  providers: [PoolAlertRepository, PoolForecastService, PoolAlertService, PoolJobs],
  exports: [PoolAlertService, PoolForecastService],
})
export class PoolModule {}
