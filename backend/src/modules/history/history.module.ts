import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { LicenseModule } from '../license/license.module';
import { MailModule } from '../mail/mail.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { RedemptionHistoryController } from './redemption-history.controller';
import { RedemptionHistoryService } from './redemption-history.service';

/** A redemption's history (docs/product.md §20.3), told by the owners of each part; owns no table. */
@Module({
  imports: [AuthModule, LicenseModule, MailModule, RedemptionModule],
  controllers: [RedemptionHistoryController],
  providers: [RedemptionHistoryService],
})
export class HistoryModule {}
