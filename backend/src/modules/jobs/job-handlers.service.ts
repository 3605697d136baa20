import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuditService } from '../audit/audit.service';
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
    private readonly dataSource: DataSource,
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
      auditLogs: await this.deleteInBatches(
        `SELECT id FROM security_audit_log WHERE created_at < now() - make_interval(days => $1) LIMIT $2`,
        'security_audit_log',
        c.auditRetentionDays,
      ),
      emailLogs: await this.deleteInBatches(
        `SELECT id FROM email_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2`,
        'email_logs',
        c.emailLogRetentionDays,
      ),
      redemptions: await this.deleteInBatches(
        `SELECT id FROM redemptions WHERE redeemed_at < now() - make_interval(days => $1) LIMIT $2`,
        'redemptions',
        c.redemptionRetentionDays,
      ),
      customers: await this.deleteInBatches(
        `SELECT c.id FROM customers c WHERE c.created_at < now() - make_interval(days => $1)
            AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.customer_id = c.id) LIMIT $2`,
        'customers',
        c.redemptionRetentionDays,
      ),
    };
    const total = Object.values(result).reduce((a, b) => a + b, 0);
    // A run that removed nothing changed nothing: no audit row (every process start runs it once).
    if (total) {
      this.logger.log(`Retention removed ${JSON.stringify(result)}`);
      await this.audit.record({ action: 'system.retention', success: true, resource: 'system', details: { ...result } });
    }
    return result;
  }

  private async deleteInBatches(selectIds: string, table: string, days: number): Promise<number> {
    let deleted = 0;
    for (;;) {
      const [{ n }] = await this.dataSource.query(
        `WITH d AS (DELETE FROM ${table} WHERE id IN (${selectIds}) RETURNING 1) SELECT count(*)::int AS n FROM d`,
        [days, RETENTION_BATCH],
      );
      deleted += n;
      if (n < RETENTION_BATCH) return deleted;
    }
  }
}

const RETENTION_BATCH = 5000;

export interface RetentionResult {
  auditLogs: number;
  emailLogs: number;
  redemptions: number;
  customers: number;
}
