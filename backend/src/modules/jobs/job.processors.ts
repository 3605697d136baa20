import { Process, Processor } from '@nestjs/bull';
import type { Job } from 'bull';
import { JobHandlers } from './job-handlers.service';
import { JOB, QUEUE } from './jobs.constants';

@Processor(QUEUE.MAIL)
export class MailProcessor {
  constructor(private readonly handlers: JobHandlers) {}

  @Process({ name: JOB.SEND_REDEMPTION_MAIL, concurrency: 5 })
  send(job: Job<{ redemptionId: string }>) {
    return this.handlers.sendRedemptionMail(job.data.redemptionId, job.attemptsMade + 1, job.opts.attempts ?? 1);
  }
}

@Processor(QUEUE.MAINTENANCE)
export class MaintenanceProcessor {
  constructor(private readonly handlers: JobHandlers) {}

  @Process(JOB.SWEEP_PENDING_MAIL)
  sweep() {
    return this.handlers.sweepPendingMail();
  }

  @Process(JOB.RETENTION_CLEANUP)
  retention() {
    return this.handlers.runRetention();
  }
}
