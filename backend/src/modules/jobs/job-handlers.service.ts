import { Inject, Injectable, Logger } from '@nestjs/common';
import { AuditService } from '../audit/audit.service';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { EmailLogRepository } from '../mail/email-log.repository';
import { RedemptionMailService } from '../mail/redemption-mail.service';
import { RedemptionRetentionRepository } from '../redemption/redemption-retention.repository';
import { JobQueue } from './job-queue';

/** The job logic, shared by the Bull processors and the in-process runner. */
@Injectable()
export class JobHandlers {
  private readonly logger = new Logger(JobHandlers.name);

  constructor(
    private readonly redemptionMail: RedemptionMailService,
    private readonly queue: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly redemptionRetention: RedemptionRetentionRepository,
    private readonly emailLogs: EmailLogRepository,
    private readonly audit: AuditService,
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

  /**
   * SPEC §1 retention: security audit rows (1 year), e-mail logs (2 years) and redemptions (7 years) by
   * default. Deleted in batches so no statement holds locks on a large table for long. A deleted
   * redemption keeps its voucher code redeemed and its licence assignment (redemption_id set null);
   * customers left without any redemption and older than the limit go with it.
   */
  async runRetention(): Promise<RetentionResult> {
    const c = this.config;
    const result: RetentionResult = {
      auditLogs: await inBatches((batch) => this.audit.deleteOlderThan(c.auditRetentionDays, batch)),
      emailLogs: await inBatches((batch) => this.emailLogs.deleteOlderThan(c.emailLogRetentionDays, batch)),
      redemptions: await inBatches((batch) =>
        this.redemptionRetention.deleteOlderThan(c.redemptionRetentionDays, batch),
      ),
      customers: await inBatches((batch) => this.redemptionRetention.deleteUnusedCustomers(c.redemptionRetentionDays, batch)),
    };
    const total = Object.values(result).reduce((a, b) => a + b, 0);
    // A run that removed nothing changed nothing: no audit row (every process start runs it once).
    if (total) {
      this.logger.log(`Retention removed ${JSON.stringify(result)}`);
      await this.audit.record({ action: 'system.retention', success: true, resource: 'system', details: { ...result } });
    }
    return result;
  }
}

const RETENTION_BATCH = 5000;

/** Runs one batched delete until a batch comes back short; answers the rows deleted in all. */
async function inBatches(deleteBatch: (batch: number) => Promise<number>): Promise<number> {
  let deleted = 0;
  for (;;) {
    const n = await deleteBatch(RETENTION_BATCH);
    deleted += n;
    if (n < RETENTION_BATCH) return deleted;
  }
}

export interface RetentionResult {
  auditLogs: number;
  emailLogs: number;
  redemptions: number;
  customers: number;
}
