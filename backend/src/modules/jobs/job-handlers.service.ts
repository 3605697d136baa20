import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { RedemptionMailService } from '../mail/redemption-mail.service';
import { JobQueue } from './job-queue';

/** The job logic, shared by the Bull processors and the in-process runner. */
@Injectable()
export class JobHandlers {
  private readonly logger = new Logger(JobHandlers.name);

  constructor(
    private readonly redemptionMail: RedemptionMailService,
    private readonly queue: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  sendRedemptionMail(redemptionId: string, attempt: number, maxAttempts: number) {
    return this.redemptionMail.deliver(redemptionId, attempt, maxAttempts);
  }

  async sweepPendingMail(): Promise<number> {
    const ids = await this.redemptionMail.findStalePending(this.config.mailSweepAfterMs);
    for (const id of ids) this.queue.enqueueRedemptionMail(id);
    if (ids.length) this.logger.log(`Re-queued ${ids.length} pending e-mail(s)`);
    return ids.length;
  }
}
