import { Module } from '@nestjs/common';
import { RedemptionModule } from '../redemption/redemption.module';
import { EmailLogRepository } from './email-log.repository';
import { MailTransportService } from './mail-transport.service';
import { OrderMailRelay } from './order-mail-relay';
import { RedemptionMailJob } from './redemption-mail.job';
import { RedemptionMailService } from './redemption-mail.service';

/** E-mail: templates, the SMTP primary/fallback transport, the order e-mail outbox, its jobs and its log. */
@Module({
  imports: [RedemptionModule],
  providers: [MailTransportService, RedemptionMailService, EmailLogRepository, OrderMailRelay, RedemptionMailJob],
  exports: [MailTransportService, RedemptionMailService, EmailLogRepository],
})
export class MailModule {}
