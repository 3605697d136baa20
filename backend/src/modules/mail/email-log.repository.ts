import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { EmailLog } from './entities/email-log.entity';
import { deleteBatch, queryRows } from '../../database/query-rows';
import type { ProviderAttempt } from './mail-transport.service';

export interface EmailLogEntry {
  redemptionId: string | null;
  provider: string;
  recipient: string;
  subject: string;
  status: 'sent' | 'failed';
  error: string | null;
  messageId: string | null;
}

/** The only code that writes `email_logs` (retention deletes its old rows in the jobs module). */
@Injectable()
export class EmailLogRepository {
  constructor(private readonly database: DatabaseService) {}

  /** One multi-row INSERT for every provider attempt of a send. */
  async insert(entries: EmailLogEntry[]): Promise<void> {
    if (!entries.length) return;
    await this.database.manager.getRepository(EmailLog).insert(entries);
  }

  /** Sends per provider and status over the last `minutes` (the metrics), a range of idx_email_logs_created. */
  recentCounts(minutes: number): Promise<Array<{ provider: string; status: string; n: number }>> {
    return queryRows(
      this.database.manager,
      `SELECT provider, status, count(*)::int AS n FROM email_logs
        WHERE created_at > now() - make_interval(mins => $1) GROUP BY provider, status`,
      [minutes],
    );
  }

  /** One row per provider attempt of one send (order e-mails carry their redemption, pool alerts none). */
  logAttempts(redemptionId: string | null, recipient: string, subject: string, attempts: ProviderAttempt[]): Promise<void> {
    return this.insert(
      attempts.map((a) => ({
        redemptionId,
        provider: a.provider,
        recipient,
        subject: subject.slice(0, 500),
        status: a.ok ? ('sent' as const) : ('failed' as const),
        error: a.error ?? null,
        messageId: a.messageId ?? null,
      })),
    );
  }

  /** Every attempt logged for one redemption, oldest first (idx_email_logs_redemption): its history. */
  async forRedemption(redemptionId: string): Promise<EmailLog[]> {
    return this.database.manager
      .getRepository(EmailLog)
      .find({ where: { redemptionId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /** docs/product.md §1.5 retention: one batch of logs older than `days` (found through idx_email_logs_created). */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    return deleteBatch(this.database.manager, 'email_logs', 'created_at < now() - make_interval(days => $1)', [days], batch);
  }
}
