import { InjectQueue, Process, Processor } from '@nestjs/bull';
import { Inject, OnModuleInit } from '@nestjs/common';
import type { Job, Queue } from 'bull';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobHandlers } from './job-handlers.service';
import { JOB, QUEUE } from './jobs.constants';

@Processor(QUEUE.MAIL)
export class MailProcessor implements OnModuleInit {
  constructor(
    private readonly handlers: JobHandlers,
    @InjectQueue(QUEUE.MAIL) private readonly queue: Queue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Every e-mail job of the queue (order e-mails, pool alerts) through one handler running MAIL_CONCURRENCY at once,
   * the SMTP connections each provider keeps: Bull adds up the concurrency of named handlers, so a second one would
   * let more jobs run than there are connections. Registered here, not by decorator, because a decorator's
   * concurrency is fixed at import, before the configuration is read.
   */
  onModuleInit(): void {
    this.queue
      .process('*', this.config.mailConcurrency, (job: Job) => this.run(job))
      // A failure to run is emitted as the queue's 'error' too, which BullJobQueue logs.
      .catch(() => undefined);
  }

  private run(job: Job) {
    const attempt = job.attemptsMade + 1;
    const attempts = job.opts.attempts ?? 1;
    switch (job.name) {
      case JOB.SEND_REDEMPTION_MAIL:
        return this.handlers.sendRedemptionMail((job.data as { redemptionId: string }).redemptionId, attempt, attempts);
      case JOB.SEND_POOL_ALERT:
        return this.handlers.sendPoolAlert((job.data as { alertId: string }).alertId, attempt, attempts);
      case JOB.SEND_CUSTOMER_LINK:
        return this.handlers.sendCustomerLink((job.data as { linkId: string }).linkId, attempt, attempts);
      default:
        throw new Error(`unknown mail job ${job.name}`);
    }
  }
}

@Processor(QUEUE.WEBHOOK)
export class WebhookProcessor {
  constructor(private readonly handlers: JobHandlers) {}

  // A receiver may take WEBHOOK_TIMEOUT_MS to answer: enough in parallel that one slow receiver holds no other back.
  @Process({ name: JOB.DELIVER_WEBHOOK, concurrency: 20 })
  deliver(job: Job<{ deliveryId: string }>) {
    return this.handlers.deliverWebhook(job.data.deliveryId);
  }
}

@Processor(QUEUE.MAINTENANCE)
export class MaintenanceProcessor {
  constructor(private readonly handlers: JobHandlers) {}

  @Process(JOB.SWEEP_PENDING_MAIL)
  sweep() {
    return this.handlers.sweepPendingMail();
  }

  @Process(JOB.SWEEP_WEBHOOKS)
  sweepWebhooks() {
    return this.handlers.sweepWebhooks();
  }

  @Process(JOB.CHECK_POOL)
  checkPool(job: Job<{ productId: string | null }>) {
    return this.handlers.checkPool(job.data.productId ?? null);
  }

  @Process(JOB.RETENTION_CLEANUP)
  retention() {
    return this.handlers.runRetention();
  }
}
