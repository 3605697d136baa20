import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import { PoolAlertStatus } from './entities/pool-alert.entity';

export interface NewPoolAlert {
  productId: string;
  productName: string;
  alertDay: string;
  availableActivations: number;
  redeemedLast7Days: number;
  daysLeft: number | null;
  waitingCustomers: number;
}

export interface ClaimedPoolAlert {
  id: string;
  recipient: string;
  productName: string;
  availableActivations: number;
  redeemedLast7Days: number;
  daysLeft: number | null;
  waitingCustomers: number;
}

/** The one owner of `pool_alerts`, the low-pool e-mail outbox. */
@Injectable()
export class PoolAlertRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * One pending alert per recipient for the product and day; recipients already alerted that day are skipped by
   * uq_pool_alerts_product_admin_day, so two checks racing (two instances, a redemption and the daily job) alert
   * once. Answers the ids of the rows written: those are queued.
   */
  async insertForRecipients(alert: NewPoolAlert, recipients: Array<{ id: string; email: string }>): Promise<string[]> {
    if (!recipients.length) return [];
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `INSERT INTO pool_alerts (product_id, admin_user_id, recipient, alert_day, product_name, available_activations,
                                redeemed_last_7_days, days_left, waiting_customers)
       SELECT $1::uuid, u.id, u.email, $4::date, $5::text, $6::int, $7::int, $8::int, $9::int
         FROM unnest($2::uuid[], $3::text[]) AS u(id, email)
       ON CONFLICT ON CONSTRAINT uq_pool_alerts_product_admin_day DO NOTHING
       RETURNING id`,
      [
        alert.productId,
        recipients.map((r) => r.id),
        recipients.map((r) => r.email),
        alert.alertDay,
        alert.productName,
        alert.availableActivations,
        alert.redeemedLast7Days,
        alert.daysLeft,
        alert.waitingCustomers,
      ],
    );
    return rows.map((r) => r.id);
  }

  /** Claims a pending alert for one send (no live claim of another worker); undefined: nothing to send. */
  async claim(id: string, claimSeconds: number): Promise<ClaimedPoolAlert | undefined> {
    const [row] = await queryRows(
      this.database.manager,
      `UPDATE pool_alerts SET claimed_until = now() + make_interval(secs => $2), attempts = attempts + 1
        WHERE id = $1 AND status = 'pending' AND (claimed_until IS NULL OR claimed_until < now())
        RETURNING id, recipient, product_name, available_activations, redeemed_last_7_days, days_left,
                  waiting_customers`,
      [id, claimSeconds],
    );
    return (
      row && {
        id: row.id,
        recipient: row.recipient,
        productName: row.product_name,
        availableActivations: row.available_activations,
        redeemedLast7Days: row.redeemed_last_7_days,
        daysLeft: row.days_left,
        waitingCustomers: row.waiting_customers,
      }
    );
  }

  /** Settles a send: sent or failed for good, or pending again with the claim ended now (the sweep's clock). */
  async finish(id: string, status: PoolAlertStatus): Promise<void> {
    await this.database.manager.query(
      `UPDATE pool_alerts SET status = $2::text, claimed_until = CASE WHEN $2::text = 'pending' THEN now() END,
              sent_at = CASE WHEN $2::text = 'sent' THEN now() END
        WHERE id = $1`,
      [id, status],
    );
  }

  /** Pending alerts with no live claim whose last attempt (or creation) is older than `olderThanMs`: lost jobs. */
  async findStalePending(olderThanMs: number, limit: number): Promise<string[]> {
    const rows: Array<{ id: string }> = await this.database.manager.query(
      `SELECT id FROM pool_alerts
        WHERE status = 'pending' AND coalesce(claimed_until, created_at) < now() - make_interval(secs => $1)
        ORDER BY created_at LIMIT $2`,
      [olderThanMs / 1000, limit],
    );
    return rows.map((r) => r.id);
  }
}
