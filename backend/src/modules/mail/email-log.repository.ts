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
}
