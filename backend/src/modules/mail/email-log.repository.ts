import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { EmailLog } from './entities/email-log.entity';

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

  /** SPEC §1 retention: one batch of logs older than `days` (found through idx_email_logs_created). */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    const [{ n }] = await this.database.manager.query(
      `WITH d AS (DELETE FROM email_logs WHERE id IN (
          SELECT id FROM email_logs WHERE created_at < now() - make_interval(days => $1) LIMIT $2) RETURNING 1)
       SELECT count(*)::int AS n FROM d`,
      [days, batch],
    );
    return n;
  }
}
