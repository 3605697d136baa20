import { Inject, Injectable, Logger } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { queryRows } from '../../database/query-rows';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { MANUAL_KEY_PREFIX } from '../license/entities/license-key.entity';
import { MailTransportService, ProviderAttempt } from './mail-transport.service';
import { htmlToText, renderTemplate, TemplateValues } from './template';

export type DeliveryOutcome = 'sent' | 'skipped' | 'failed';

export class RetryableMailError extends Error {}

interface MailRow {
  id: string;
  email: string;
  first_name: string;
  last_name: string;
  code: string;
  product_name: string;
  email_subject: string;
  email_template: string;
  product_key: string | null;
  product_link: string;
  license_key: string | null;
  license_link: string | null;
}

/**
 * Sends the order e-mail of one redemption, exactly once however often its job is delivered:
 * the row is claimed with a conditional UPDATE before sending, and a sent e-mail is never claimed again.
 */
@Injectable()
export class RedemptionMailService {
  private readonly logger = new Logger(RedemptionMailService.name);

  constructor(
    private readonly dataSource: DataSource,
    private readonly transport: MailTransportService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * One delivery attempt. Throws RetryableMailError when every provider failed and attempts remain,
   * so the queue retries with backoff; on the last attempt the redemption is marked failed instead.
   */
  async deliver(redemptionId: string, attempt: number, maxAttempts: number): Promise<DeliveryOutcome> {
    const claimed = await queryRows(
      this.dataSource,
      `UPDATE redemptions
          SET email_locked_until = now() + make_interval(secs => $2),
              email_attempts = email_attempts + 1,
              email_last_attempt_at = now()
        WHERE id = $1 AND email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
        RETURNING id`,
      [redemptionId, this.config.mailClaimSeconds],
    );
    if (!claimed.length) return 'skipped';

    const [row]: MailRow[] = await this.dataSource.query(
      `SELECT r.id, c.email, c.first_name, c.last_name, v.code,
              p.name AS product_name, p.email_subject, p.email_template, p.product_key,
              p.download_link AS product_link, lk.license_key, lk.download_link AS license_link
         FROM redemptions r
         JOIN customers c ON c.id = r.customer_id
         JOIN products p ON p.id = r.product_id
         JOIN voucher_codes v ON v.id = r.voucher_code_id
         LEFT JOIN LATERAL (
           SELECT k.license_key, k.download_link
             FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
            WHERE a.redemption_id = r.id
            ORDER BY a.assigned_at DESC LIMIT 1
         ) lk ON true
        WHERE r.id = $1`,
      [redemptionId],
    );

    const values: TemplateValues = {
      customer_name: `${row.first_name} ${row.last_name}`.trim(),
      first_name: row.first_name,
      last_name: row.last_name,
      voucher_code: row.code,
      product_name: row.product_name,
      license_key: stripManualPrefix(row.license_key ?? row.product_key ?? ''),
      download_link: row.license_link ?? row.product_link,
      support_email: this.config.supportEmail,
    };
    const subject = renderTemplate(row.email_subject || 'Your {{product_name}} order', values, false);
    const html = renderTemplate(row.email_template, values, true);
    const attempts = await this.transport.send({ to: row.email, subject, html, text: htmlToText(html) });
    await this.log(redemptionId, row.email, subject, attempts);

    const delivered = attempts.some((a) => a.ok);
    const last = attempt >= maxAttempts;
    const status = delivered ? 'sent' : last ? 'failed' : 'pending';
    await this.dataSource.query(
      `UPDATE redemptions SET email_status = $2, email_locked_until = NULL WHERE id = $1`,
      [redemptionId, status],
    );
    if (delivered) return 'sent';
    if (last) {
      this.logger.error(`Order e-mail for redemption ${redemptionId} failed after ${attempt} attempts`);
      return 'failed';
    }
    throw new RetryableMailError(attempts.map((a) => `${a.provider}: ${a.error}`).join('; '));
  }

  /** Redemptions whose e-mail is pending with no live claim: their job was lost (Redis down, worker died). */
  async findStalePending(olderThanMs: number, limit = 500): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.dataSource.query(
      `SELECT id FROM redemptions
        WHERE email_status = 'pending' AND NOT awaiting_license
          AND (email_locked_until IS NULL OR email_locked_until < now())
          AND coalesce(email_last_attempt_at, redeemed_at) < now() - make_interval(secs => $1)
        ORDER BY redeemed_at
        LIMIT $2`,
      [olderThanMs / 1000, limit],
    );
    return rows.map((r) => r.id);
  }

  private async log(redemptionId: string, recipient: string, subject: string, attempts: ProviderAttempt[]) {
    if (!attempts.length) return;
    const params: unknown[] = [];
    const rows = attempts.map((a, i) => {
      params.push(redemptionId, a.provider, recipient, subject.slice(0, 500), a.ok ? 'sent' : 'failed', a.error ?? null, a.messageId ?? null);
      const o = i * 7;
      return `($${o + 1}, $${o + 2}, $${o + 3}, $${o + 4}, $${o + 5}, $${o + 6}, $${o + 7})`;
    });
    await this.dataSource.query(
      `INSERT INTO email_logs (redemption_id, provider, recipient, subject, status, error, message_id) VALUES ${rows.join(', ')}`,
      params,
    );
  }
}

export function stripManualPrefix(key: string): string {
  return key.startsWith(MANUAL_KEY_PREFIX) ? key.slice(MANUAL_KEY_PREFIX.length) : key;
}
