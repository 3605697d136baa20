import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { deleteBatch, queryRows, resealColumn } from '../../database/query-rows';
import { WebhookDeliveryStatus } from './entities/webhook-delivery.entity';

/** WEBHOOK_TEST_EVENT (webhook-events.ts imports this file): "Send test event" still goes to a paused endpoint. */
const TEST_EVENT = 'webhook.test';

export interface WebhookEndpointView {
  id: string;
  url: string;
  events: string[];
  isActive: boolean;
  /** Set when the circuit breaker paused the endpoint (docs/product.md §20.4). */
  pausedAt: Date | null;
  /** Failed attempts in a row since the last success. */
  consecutiveFailures: number;
  createdAt: Date;
}

export interface WebhookDeliveryView {
  id: string;
  event: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  responseStatus: number | null;
  lastError: string | null;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
}

/** What a delivery job needs: the row it claimed, its endpoint's URL and opened secret. */
export interface ClaimedDelivery {
  id: string;
  event: string;
  payload: Record<string, unknown>;
  attempts: number;
  createdAt: Date;
  url: string;
  secret: string;
}

export interface AttemptResult {
  status: WebhookDeliveryStatus;
  responseStatus: number | null;
  responseBody: string | null;
  error: string | null;
  /** When the next attempt is due (status pending). */
  nextAttemptAt: Date | null;
  now: Date;
}

const ENDPOINT_COLUMNS = `id, url, events, is_active AS "isActive", paused_at AS "pausedAt",
  consecutive_failures AS "consecutiveFailures", created_at AS "createdAt"`;

/** When the circuit breaker pauses an endpoint (WEBHOOK_PAUSE_AFTER_FAILURES / WEBHOOK_PAUSE_AFTER_MINUTES). */
export interface PauseRule {
  /** Failed attempts in a row (0: never pause). */
  failures: number;
  /** ... the first of which is at least this old. */
  minutes: number;
}

/**
 * The only code that touches `webhook_endpoints` and `webhook_deliveries`. Secrets are sealed here on the way in and
 * opened here for a delivery only (docs/product.md §18.1 "Keys at rest": the same `DataCipher` as licence keys).
 */
@Injectable()
export class WebhookRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  async createEndpoint(url: string, events: string[], secret: string): Promise<WebhookEndpointView> {
    const [row] = await queryRows<WebhookEndpointView>(
      this.database.manager,
      `INSERT INTO webhook_endpoints (url, events, secret_ciphertext) VALUES ($1, $2, $3) RETURNING ${ENDPOINT_COLUMNS}`,
      [url, events, this.cipher.seal(secret)],
    );
    return row;
  }

  /** `rotate-data-key`: every endpoint secret not yet under DATA_KEY re-sealed (a handful of rows; rerun-safe). */
  rotateSecrets(): Promise<number> {
    return resealColumn(this.database.manager, this.cipher, 'webhook_endpoints', 'secret_ciphertext');
  }

  /** `rotate-data-key`'s closing check: endpoint secrets not under DATA_KEY. */
  async countSecretsNotUnder(keyId: Buffer): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM webhook_endpoints WHERE substring(secret_ciphertext FROM 2 FOR 4) <> $1`,
      [keyId],
    );
    return n;
  }

  /** The events at least one active endpoint subscribes to (a handful of rows). */
  async subscribedEvents(): Promise<string[]> {
    const rows = await queryRows<{ event: string }>(
      this.database.manager,
      `SELECT DISTINCT unnest(events) AS event FROM webhook_endpoints WHERE is_active`,
    );
    return rows.map((r) => r.event);
  }

  listEndpoints(): Promise<WebhookEndpointView[]> {
    return queryRows(
      this.database.manager,
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints ORDER BY created_at, id`,
    );
  }

  async findEndpoint(id: string): Promise<WebhookEndpointView | undefined> {
    const [row] = await queryRows<WebhookEndpointView>(
      this.database.manager,
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE id = $1`,
      [id],
    );
    return row;
  }

  /** Its deliveries go with it (ON DELETE CASCADE); a job still queued for one finds nothing to claim. */
  async deleteEndpoint(id: string): Promise<boolean> {
    const rows = await queryRows(this.database.manager, `DELETE FROM webhook_endpoints WHERE id = $1 RETURNING id`, [
      id,
    ]);
    return rows.length > 0;
  }

  /**
   * The emit on the redemption path: one statement whatever the number of endpoints, one outbox row per active
   * endpoint subscribed to the event (webhook_endpoints holds a handful of rows: a sequential read of one page).
   */
  async insertForEvent(event: string, payload: Record<string, unknown>): Promise<Array<{ id: string }>> {
    // A paused endpoint's delivery is kept (queued for Resume) but not answered: nothing to enqueue now.
    return queryRows(
      this.database.manager,
      `WITH e AS (SELECT id, paused_at IS NOT NULL AS paused FROM webhook_endpoints WHERE is_active AND $1::text = ANY(events)),
            ins AS (INSERT INTO webhook_deliveries (endpoint_id, event, payload) SELECT id, $1::text, $2::jsonb FROM e
                    RETURNING id, endpoint_id)
       SELECT ins.id FROM ins JOIN e ON e.id = ins.endpoint_id WHERE NOT e.paused`,
      [event, JSON.stringify(payload)],
    );
  }

  /** "Send test event": one delivery to this endpoint whatever it subscribed to. */
  async insertForEndpoint(
    endpointId: string,
    event: string,
    payload: Record<string, unknown>,
  ): Promise<string | undefined> {
    const [row] = await queryRows<{ id: string }>(
      this.database.manager,
      `INSERT INTO webhook_deliveries (endpoint_id, event, payload) SELECT id, $2::text, $3::jsonb FROM webhook_endpoints WHERE id = $1
       RETURNING id`,
      [endpointId, event, JSON.stringify(payload)],
    );
    return row?.id;
  }

  /** The newest deliveries of an endpoint (idx_webhook_deliveries_endpoint_created, read backwards). */
  recentDeliveries(endpointId: string, limit: number): Promise<WebhookDeliveryView[]> {
    return queryRows(
      this.database.manager,
      `SELECT id, event, status, attempts, response_status AS "responseStatus", last_error AS "lastError",
              created_at AS "createdAt", delivered_at AS "deliveredAt",
              CASE WHEN status = 'pending' THEN next_attempt_at END AS "nextAttemptAt"
         FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY created_at DESC, id DESC LIMIT $2`,
      [endpointId, limit],
    );
  }

  /**
   * Claims a due pending delivery for one attempt (a job delivered twice, or one queued by the sweep while another
   * waits, finds it claimed or not yet due and does nothing). The claim outlives the attempt's timeout.
   */
  async claim(id: string, now: Date, claimSeconds: number): Promise<ClaimedDelivery | undefined> {
    const [row] = await queryRows<Omit<ClaimedDelivery, 'secret'> & { secret_ciphertext: Buffer }>(
      this.database.manager,
      `UPDATE webhook_deliveries d SET claimed_until = $2::timestamptz + make_interval(secs => $3)
         FROM webhook_endpoints e
        WHERE d.id = $1 AND e.id = d.endpoint_id AND d.status = 'pending' AND d.next_attempt_at <= $2
          AND (d.claimed_until IS NULL OR d.claimed_until < $2) AND (e.paused_at IS NULL OR d.event = $4)
        RETURNING d.id, d.event, d.payload, d.attempts, d.created_at AS "createdAt", e.url, e.secret_ciphertext`,
      [id, now, claimSeconds, TEST_EVENT],
    );
    if (!row) return undefined;
    const { secret_ciphertext, ...rest } = row;
    return { ...rest, secret: this.cipher.open(secret_ciphertext) };
  }

  /** Records one attempt and releases the claim; answers the attempts made so far. */
  async recordAttempt(id: string, result: AttemptResult): Promise<number> {
    const [row] = await queryRows<{ attempts: number }>(
      this.database.manager,
      `UPDATE webhook_deliveries
          SET attempts = attempts + 1, status = $2::varchar, response_status = $3, response_body = $4, last_error = $5,
              next_attempt_at = COALESCE($6::timestamptz, next_attempt_at), claimed_until = NULL,
              delivered_at = CASE WHEN $2::varchar = 'delivered' THEN $7::timestamptz END
        WHERE id = $1 RETURNING attempts`,
      [
        id,
        result.status,
        result.responseStatus,
        result.responseBody,
        result.error?.slice(0, 500) ?? null,
        result.nextAttemptAt,
        result.now,
      ],
    );
    return row?.attempts ?? 0;
  }

  /**
   * Counts an attempt's outcome on its endpoint (the circuit breaker): a success resets the run of failures, a failure
   * extends it and pauses the endpoint once `rule` says so. Answers the endpoint when this very attempt paused it.
   */
  async noteOutcome(
    deliveryId: string,
    ok: boolean,
    now: Date,
    rule: PauseRule,
  ): Promise<{ id: string; url: string } | undefined> {
    const [row] = await queryRows<{ id: string; url: string; paused: boolean }>(
      this.database.current,
      `WITH old AS (
         SELECT e.id, e.paused_at FROM webhook_endpoints e JOIN webhook_deliveries d ON d.endpoint_id = e.id
          WHERE d.id = $1 FOR UPDATE OF e)
       UPDATE webhook_endpoints e SET
              consecutive_failures = CASE WHEN $2::boolean THEN 0 ELSE e.consecutive_failures + 1 END,
              failing_since = CASE WHEN $2::boolean THEN NULL ELSE COALESCE(e.failing_since, $3::timestamptz) END,
              paused_at = CASE
                WHEN NOT $2::boolean AND e.paused_at IS NULL AND $4::int > 0 AND e.consecutive_failures + 1 >= $4::int
                     AND COALESCE(e.failing_since, $3::timestamptz) <= $3::timestamptz - make_interval(mins => $5::int)
                THEN $3::timestamptz ELSE e.paused_at END
         FROM old WHERE e.id = old.id
       RETURNING e.id, e.url, (old.paused_at IS NULL AND e.paused_at IS NOT NULL) AS paused`,
      [deliveryId, ok, now, rule.failures, rule.minutes],
    );
    return row?.paused ? { id: row.id, url: row.url } : undefined;
  }

  /**
   * Resume: the endpoint is no longer paused, its run of failures forgotten, and its queued deliveries due now
   * (answered, to be queued). Undefined when it was not paused (or does not exist).
   */
  async resume(id: string, now: Date): Promise<Array<{ id: string; attempts: number }> | undefined> {
    return this.database.transaction(async (db) => {
      const resumed = await queryRows(
        db,
        `UPDATE webhook_endpoints SET paused_at = NULL, consecutive_failures = 0, failing_since = NULL
          WHERE id = $1 AND paused_at IS NOT NULL RETURNING id`,
        [id],
      );
      if (!resumed.length) return undefined;
      return queryRows<{ id: string; attempts: number }>(
        db,
        `UPDATE webhook_deliveries SET next_attempt_at = $2 WHERE endpoint_id = $1 AND status = 'pending' RETURNING id, attempts`,
        [id, now],
      );
    });
  }

  /**
   * Pending deliveries due before `before` with no live claim: their job was lost (idx_webhook_deliveries_due).
   * A paused endpoint's are left waiting for Resume.
   */
  findStale(before: Date, limit: number): Promise<Array<{ id: string; attempts: number }>> {
    return queryRows(
      this.database.manager,
      `SELECT d.id, d.attempts FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
        WHERE d.status = 'pending' AND d.next_attempt_at < $1 AND (d.claimed_until IS NULL OR d.claimed_until < $1)
          AND e.paused_at IS NULL
        ORDER BY d.next_attempt_at LIMIT $2`,
      [before, limit],
    );
  }

  /** Pending deliveries (the metrics' outbox depth), counted on the partial index idx_webhook_deliveries_due. */
  async countPending(): Promise<number> {
    const [{ n }] = await queryRows<{ n: number }>(
      this.database.manager,
      `SELECT count(*)::int AS n FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return n;
  }

  /** Retention: one batch of settled deliveries older than `days`. */
  deleteOlderThan(days: number, batch: number): Promise<number> {
    return deleteBatch(
      this.database.manager,
      'webhook_deliveries',
      `status <> 'pending' AND created_at < now() - make_interval(days => $1)`,
      [days],
      batch,
    );
  }
}
