import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobHandlers } from './job-handlers.service';
import { JOB, QUEUE } from './jobs.constants';
import { MAIL_JOB_CONCURRENCY } from '../mail/mail-transport.service';

@Processor(QUEUE.MAIL)
export class MailProcessor {
  constructor(private readonly handlers: JobHandlers) {}

  @Process({ name: JOB.SEND_REDEMPTION_MAIL, concurrency: MAIL_JOB_CONCURRENCY })
  send(job: Job<{ redemptionId: string }>) {
    return this.handlers.sendRedemptionMail(job.data.redemptionId, job.attemptsMade + 1, job.opts.attempts ?? 1);
  }

  @Process({ name: JOB.SEND_POOL_ALERT, concurrency: 2 })
  sendPoolAlert(job: Job<{ alertId: string }>) {
    return this.handlers.sendPoolAlert(job.data.alertId, job.attemptsMade + 1, job.opts.attempts ?? 1);
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
