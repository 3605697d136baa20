import { Module } from '@nestjs/common';
import { AttemptsModule } from '../attempts/attempts.module';
import { AuthModule } from '../auth/auth.module';
import { HistoryModule } from '../history/history.module';
import { MailModule } from '../mail/mail.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { AccessLinkRepository } from './access-link.repository';
import { AccessLinkJob } from './access-link.job';
import { AccessLinkService } from './access-link.service';
import { CustomerCentreController } from './customer-centre.controller';
import { CustomerCentreService } from './customer-centre.service';
import { ErasureService } from './erasure.service';
import { PrivacyRequestsController } from './privacy-requests.controller';

/**
 * The customer's licence centre (docs/product.md §21, §21.3): owns
 * `customer_access_links`; reads and erases through the owners of the other tables.
 */
@Module({
  // AttemptsModule: the redemption module's guard on the public routes counts in the shared store.
  imports: [AttemptsModule, AuthModule, HistoryModule, MailModule, RedemptionModule],
  controllers: [CustomerCentreController, PrivacyRequestsController],
  providers: [AccessLinkRepository, AccessLinkService, CustomerCentreService, ErasureService, AccessLinkJob],
})
export class CustomerCentreModule {}
