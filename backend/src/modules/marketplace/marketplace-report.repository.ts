import { Injectable } from '@nestjs/common';
import QueryStream from 'pg-query-stream';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import type { AdapterKind } from './entities/marketplace-connection.entity';
import type { MarketplaceReportKind } from './entities/marketplace-report.entity';

export interface NewReport {
  connectionId: string;
  kind: MarketplaceReportKind;
  redemptionId: string;
  code: string;
  externalRef: string;
  redeemedAt: Date;
  /** `acked`: recorded as settled (a refund the marketplace itself sent: nothing to tell it). */
  status?: 'pending' | 'acked';
}

/** A claimed report with where it goes. */
export interface ClaimedReport {
  id: string;
  kind: MarketplaceReportKind;
  redemptionId: string;
  code: string;
  externalRef: string;
  redeemedAt: Date;
  attempts: number;
  createdAt: Date;
  connectionId: string;
  adapter: AdapterKind;
  baseUrl: string;
  secret: string;
}

/** A redemption of the reconciliation file: its report and its refund report, if any. */
export interface ReconciliationRow {
  redemptionId: string;
  code: string;
  externalRef: string;
  redeemedAt: Date;
  status: string;
  attempts: number;
  ackedAt: Date | null;
  lastError: string | null;
  refundStatus: string | null;
}

export interface ReportCounts {
  acked: number;
  pending: number;
  dead: number;
  /** Age of the oldest pending redemption report, in seconds (0: none). */
  lagSeconds: number;
}

/** The only code that touches `marketplace_reports`, the report outbox (docs/product.md §24.7). */
@Injectable()
export class MarketplaceReportRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /** One row per kind and redemption: a second insert of the same does nothing (answers undefined). */
  async insert(r: NewReport): Promise<string | undefined> {
    const [row] = await queryRows<{ id: string }>(
      this.database.manager,
      `INSERT INTO marketplace_reports (connection_id, kind, redemption_id, code, external_ref, redeemed_at, status,
                                        acked_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::varchar, CASE WHEN $7::varchar = 'acked' THEN now() END)
       ON CONFLICT (kind, redemption_id) DO NOTHING RETURNING id`,
      [r.connectionId, r.kind, r.redemptionId, r.code, r.externalRef, r.redeemedAt, r.status ?? 'pending'],
    );
    return row?.id;
  }

  /**
   * Refund reports for the reported redemptions of these codes of a connection (a refund made here of a redemption
   * the marketplace was told of); answers the new rows' ids. `status` acked: the marketplace sent the refund itself.
   */
  async insertRefunds(connectionId: string, codes: string[], status: 'pending' | 'acked'): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      this.database.manager,
      `INSERT INTO marketplace_reports (connection_id, kind, redemption_id, code, external_ref, redeemed_at, status,
                                        acked_at)
       SELECT connection_id, 'refund', redemption_id, code, external_ref, redeemed_at, $3::varchar,
              CASE WHEN $3::varchar = 'acked' THEN now() END
         FROM marketplace_reports
        WHERE connection_id = $1 AND code = ANY($2::text[]) AND kind = 'redemption' AND status <> 'dead'
       ON CONFLICT (kind, redemption_id) DO NOTHING RETURNING id`,
      [connectionId, codes, status],
    );
    return rows.map((r) => r.id);
  }

  /** Claims a due pending report for one attempt; the claim outlives the attempt's timeout. */
  async claim(id: string, claimSeconds: number): Promise<ClaimedReport | undefined> {
    const [row] = await queryRows<Omit<ClaimedReport, 'secret'> & { s: Buffer }>(
      this.database.manager,
      `UPDATE marketplace_reports r SET claimed_until = now() + make_interval(secs => $2)
         FROM marketplace_connections c
        WHERE r.id = $1 AND c.id = r.connection_id AND r.status = 'pending' AND r.next_attempt_at <= now()
          AND (r.claimed_until IS NULL OR r.claimed_until < now())
        RETURNING r.id, r.kind, r.redemption_id AS "redemptionId", r.code, r.external_ref AS "externalRef",
                  r.redeemed_at AS "redeemedAt", r.attempts, r.created_at AS "createdAt",
                  c.id AS "connectionId", c.adapter, c.base_url AS "baseUrl", c.secret_ciphertext AS s`,
      [id, claimSeconds],
    );
    if (!row) return undefined;
    const { s, ...rest } = row;
    return { ...rest, secret: this.cipher.open(s) };
  }

  /** One attempt's outcome; answers the attempts made so far. */
  async record(id: string, status: 'pending' | 'acked' | 'dead', error: string | null, nextAt: Date | null) {
    const [row] = await queryRows<{ attempts: number }>(
      this.database.manager,
      `UPDATE marketplace_reports
          SET attempts = attempts + 1, status = $2::varchar, last_error = $3, claimed_until = NULL,
              next_attempt_at = coalesce($4::timestamptz, next_attempt_at),
              acked_at = CASE WHEN $2::varchar = 'acked' THEN now() END
        WHERE id = $1 RETURNING attempts`,
      [id, status, error?.slice(0, 500) ?? null, nextAt],
    );
    return row?.attempts ?? 0;
  }

  /** Pending reports due before `before` with no live claim: their job was lost (idx_marketplace_reports_due). */
  findStale(before: Date, limit: number): Promise<Array<{ id: string; attempts: number }>> {
    return queryRows(
      this.database.manager,
      `SELECT id, attempts FROM marketplace_reports
        WHERE status = 'pending' AND next_attempt_at < $1 AND (claimed_until IS NULL OR claimed_until < $1)
        ORDER BY next_attempt_at LIMIT $2`,
      [before, limit],
    );
  }

  /** Retry dead: the connection's dead reports pending again, due now, with a fresh retry window. */
  retryDead(connectionId: string): Promise<Array<{ id: string; attempts: number }>> {
    return queryRows(
      this.database.manager,
      // A fresh window: its 24 hours and its backoff from the first delay again (attempts count within a window).
      `UPDATE marketplace_reports SET status = 'pending', next_attempt_at = now(), created_at = now(), last_error = NULL,
              attempts = 0
        WHERE connection_id = $1 AND status = 'dead' RETURNING id, attempts`,
      [connectionId],
    );
  }

  async counts(connectionId: string): Promise<ReportCounts> {
    const [row] = await queryRows<ReportCounts>(
      this.database.manager,
      `SELECT count(*) FILTER (WHERE status = 'acked')::int AS acked,
              count(*) FILTER (WHERE status = 'pending')::int AS pending,
              count(*) FILTER (WHERE status = 'dead')::int AS dead,
              coalesce(extract(epoch FROM now() - min(redeemed_at) FILTER (WHERE status = 'pending'))::int, 0)
                AS "lagSeconds"
         FROM marketplace_reports WHERE connection_id = $1 AND kind <> 'recheck'`,
      [connectionId],
    );
    return row;
  }

  /**
   * The redemption reports of a connection redeemed on `day` (YYYY-MM-DD in `timeZone`), oldest first, each with its
   * refund report's status, from a cursor (500 rows a fetch) on a bulk connection (503 when all are busy).
   */
  streamDay<T>(
    connectionId: string,
    day: string,
    timeZone: string,
    fn: (rows: AsyncIterator<ReconciliationRow>) => Promise<T>,
  ): Promise<T> {
    const sql = `SELECT r.redemption_id AS "redemptionId", r.code, r.external_ref AS "externalRef",
                        r.redeemed_at AS "redeemedAt", r.status, r.attempts, r.acked_at AS "ackedAt",
                        r.last_error AS "lastError", f.status AS "refundStatus"
                   FROM marketplace_reports r
                   LEFT JOIN marketplace_reports f ON f.kind = 'refund' AND f.redemption_id = r.redemption_id
                  WHERE r.connection_id = $1 AND r.kind = 'redemption'
                    AND r.redeemed_at >= ($2::date)::timestamp AT TIME ZONE $3
                    AND r.redeemed_at < ($2::date + 1)::timestamp AT TIME ZONE $3
                  ORDER BY r.redeemed_at, r.redemption_id`;
    return this.database.withClient(
      (client) => {
        const rows = client.query(new QueryStream(sql, [connectionId, day, timeZone], { batchSize: 500 }));
        return fn(rows[Symbol.asyncIterator]() as AsyncIterator<ReconciliationRow>);
      },
      { bulk: true },
    );
  }

  /** Pending reports of every connection (the `marketplace_reports_pending` gauge). */
  async countPending(): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM marketplace_reports WHERE status = 'pending' AND kind <> 'recheck'`,
    );
    return n;
  }
}
