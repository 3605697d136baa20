import { Module } from '@nestjs/common';
import { LicenseModule } from '../license/license.module';
import { MailModule } from '../mail/mail.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { StatsModule } from '../stats/stats.module';
import { MetricsController } from './metrics.controller';
import { MetricsService } from './metrics.service';

/** GET /metrics: the counters of `AppMetrics` (common/) and gauges read at scrape time from their owners. */
@Module({
  imports: [LicenseModule, MailModule, StatsModule, RedemptionModule],
  controllers: [MetricsController],
  providers: [MetricsService],
})
export class MetricsModule {}
