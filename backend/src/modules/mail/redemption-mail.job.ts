import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobRun } from '../jobs/job';
import { JobQueue } from '../jobs/job-queue';
import { JobRegistry } from '../jobs/job-registry';
import { RetentionRegistry } from '../retention/retention.registry';
import { EmailLogRepository } from './email-log.repository';
import { OrderMailRelay } from './order-mail-relay';
import { REDEMPTION_MAIL, redemptionMailJobId } from '../redemption/order-mail';
import { MAIL_QUEUE, mailJobPolicy, SWEEP_PENDING_MAIL } from './mail.jobs';
import { RedemptionMailService } from './redemption-mail.service';

/**
 * The order e-mail's jobs: one send per redemption (one live job per redemption; a finished job is removed, so a
 * resend can queue again), queued by the relay that reads new redemptions' e-mails (`OrderMailRelay`, a poll); the
 * sweep that re-queues pending e-mails whose job was lost (Redis down, a dead worker); and the mail queue's limit.
 * E-mail logs are kept EMAIL_LOG_RETENTION_DAYS (the retention run).
 */
@Injectable()
export class RedemptionMailJob implements OnModuleInit {
  private readonly logger = new Logger('RedemptionMailJob');

  constructor(
    private readonly jobs: JobRegistry,
    private readonly queue: JobQueue,
    private readonly mail: RedemptionMailService,
    private readonly emailLogs: EmailLogRepository,
    private readonly relay: OrderMailRelay,
    private readonly retention: RetentionRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    // One handler's worth for the whole queue: at most MAIL_CONCURRENCY e-mails at once, the SMTP connections.
    this.jobs.limitQueue(MAIL_QUEUE, this.config.mailConcurrency);
    this.jobs.register(REDEMPTION_MAIL, {
      ...mailJobPolicy(this.config),
      jobId: redemptionMailJobId,
      handle: ({ redemptionId }, run) => this.send(redemptionId, run),
    });
    this.jobs.register(SWEEP_PENDING_MAIL, { handle: () => this.sweep() });
    this.jobs.schedule(SWEEP_PENDING_MAIL, this.config.mailSweepIntervalMs, {});
    this.jobs.poll({
      name: 'mail.relay-order-emails',
      every: this.config.mailRelayIntervalMs,
      run: () => this.relayNew(),
    });
    this.retention.deletes('emailLogs', (batch) =>
      this.emailLogs.deleteOlderThan(this.config.emailLogRetentionDays, batch),
    );
  }

  send(redemptionId: string, run: JobRun) {
    return this.mail.deliver(redemptionId, run.attempt, run.attempts);
  }

  /** New redemptions' order e-mails queued (`OrderMailRelay`): how many. */
  relayNew(): Promise<number> {
    return this.relay.run();
  }

  /** Order e-mails pending with no live job (lost with Redis, a dead worker): queued again. */
  async sweep(): Promise<number> {
    const ids = await this.mail.findStalePending(this.config.mailSweepAfterMs);
    for (const redemptionId of ids) this.queue.add(REDEMPTION_MAIL, { redemptionId });
    if (ids.length) this.logger.log(`Re-queued ${ids.length} pending e-mail(s)`);
    return ids.length;
  }
}
