import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { EmailLog } from './entities/email-log.entity';
import { deleteBatch, queryRows } from '../../database/query-rows';
import { returnedRows } from '../../common/utils/sql';
import { Batcher } from '../../common/utils/batcher';
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

  /**
   * Every provider attempt of a send, written with those of the sends that end at the same time (a worker's
   * concurrent jobs): one INSERT for them all (no foreign key: a log row locks nothing and outlives its redemption).
   */
  async insert(entries: EmailLogEntry[]): Promise<void> {
    if (entries.length) await this.inserts.call(entries);
  }

  private readonly inserts = new Batcher<EmailLogEntry[], void>(async (sends) => {
    const rows = sends.flat();
    const column = <K extends keyof EmailLogEntry>(key: K) => rows.map((row) => row[key]);
    // A named statement, parsed and planned once per connection: a worker writes one per batch of sends.
    await this.database.pool.query({
      name: 'email-log-insert',
      text: `INSERT INTO email_logs (redemption_id, provider, recipient, subject, status, error, message_id)
               SELECT * FROM unnest($1::uuid[], $2::varchar[], $3::varchar[], $4::varchar[], $5::varchar[],
                                    $6::text[], $7::varchar[])`,
      values: [
        column('redemptionId'),
        column('provider'),
        column('recipient'),
        column('subject'),
        column('status'),
        column('error'),
        column('messageId'),
      ],
    });
    return sends.map(() => undefined);
  });

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
  logAttempts(
    redemptionId: string | null,
    recipient: string,
    subject: string,
    attempts: ProviderAttempt[],
  ): Promise<void> {
    // Cut to the columns' lengths: the rows are written together with other sends', which one row too long would fail.
    return this.insert(
      attempts.map((a) => ({
        redemptionId,
        provider: a.provider.slice(0, 50),
        recipient: recipient.slice(0, 254),
        subject: subject.slice(0, 500),
        status: a.ok ? ('sent' as const) : ('failed' as const),
        error: a.error ?? null,
        messageId: a.messageId?.slice(0, 255) ?? null,
      })),
    );
  }

  /** Every attempt logged for one redemption, oldest first (idx_email_logs_redemption): its history. */
  async forRedemption(redemptionId: string): Promise<EmailLog[]> {
    return this.database.manager
      .getRepository(EmailLog)
      .find({ where: { redemptionId }, order: { createdAt: 'ASC', id: 'ASC' } });
  }

  /**
   * Every e-mail sent to a customer (docs/product.md §21.3): the order e-mails of their redemptions and the
   * messages addressed to them without a redemption (sign-in links, the erasure's confirmation), oldest first.
   */
  async forCustomer(email: string, redemptionIds: string[]): Promise<EmailLog[]> {
    return this.database.manager.query(
      `SELECT id, redemption_id AS "redemptionId", provider, recipient, subject, status, error, message_id AS "messageId",
              created_at AS "createdAt"
         FROM email_logs WHERE redemption_id = ANY($1::uuid[]) OR (redemption_id IS NULL AND recipient = $2)
        ORDER BY created_at, id`,
      [redemptionIds, email],
    );
  }

  /**
   * An erasure (docs/product.md §21.3), on its transaction: the customer's logs keep provider, status and time;
   * the recipient is emptied, the subject (a template may put the name in it) and any mention of the address in a
   * provider's error text replaced. Answers how many rows were touched.
   */
  async erase(email: string, redemptionIds: string[]): Promise<number> {
    const db = this.database.current;
    const quoted = email.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const rows = returnedRows(
      await db.query(
        `UPDATE email_logs SET recipient = '', subject = '[erased]',
              error = regexp_replace(error, $3, '[erased]', 'gi')
        WHERE redemption_id = ANY($1::uuid[]) OR recipient = $2
        RETURNING 1`,
        [redemptionIds, email, quoted],
      ),
    );
    return rows.length;
  }

  /** docs/product.md §1.5 retention: one batch of logs older than `days` (found through idx_email_logs_created). */
  async deleteOlderThan(days: number, batch: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'email_logs',
      'created_at < now() - make_interval(days => $1)',
      [days],
      batch,
    );
  }
}
