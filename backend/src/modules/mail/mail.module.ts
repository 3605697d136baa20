import { Module } from '@nestjs/common';
import { AuthModule } from '../auth/auth.module';
import { RedemptionModule } from '../redemption/redemption.module';
import { EmailLogRepository } from './email-log.repository';
import { MailTransportService } from './mail-transport.service';
import { OrderMailRelay } from './order-mail-relay';
import { RedemptionMailJob } from './redemption-mail.job';
import { RedemptionMailService } from './redemption-mail.service';
import { ReviewMailJob } from './review-mail.job';

/**
 * E-mail: templates, the SMTP primary/fallback transport, the order e-mail outbox, its jobs and its log; the review's
 * refusal e-mail and its two-hour alert (docs/product.md §25).
 */
@Module({
  imports: [AuthModule, RedemptionModule],
  providers: [
    MailTransportService,
    RedemptionMailService,
    EmailLogRepository,
    OrderMailRelay,
    RedemptionMailJob,
    ReviewMailJob,
  ],
  exports: [MailTransportService, RedemptionMailService, EmailLogRepository],
})
export class MailModule {}
