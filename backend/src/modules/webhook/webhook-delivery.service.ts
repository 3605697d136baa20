import { Inject, Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobQueue } from '../jobs/job-queue';
import { claimSecondsFor, postWebhook, withDeadline } from './webhook-http';
import { SIGNATURE_HEADER, signatureHeader } from './webhook-signature';
import { insecureTargetList, resolveWebhookTarget, WebhookUrlPolicy } from './webhook-url-guard';
import { AttemptResult, WebhookRepository } from './webhook.repository';
import { DELIVER_WEBHOOK } from './webhook.jobs';
import { DomainEvents } from '../../events/domain-events.service';
import { DatabaseService } from '../../database/database.service';

export type WebhookAttemptOutcome = 'delivered' | 'retry' | 'failed' | 'skipped';

/**
 * Sends one webhook delivery (the job's work): claims the outbox row, checks the URL again (DNS may have changed
 * since registration) and connects to the address it checked, signs and posts the body, and records the attempt.
 * A failure schedules the next attempt itself (backoff doubling from WEBHOOK_BACKOFF_MS) until WEBHOOK_RETRY_HOURS
 * after the event; then the delivery is failed. Nothing here throws to the queue: the row is the state.
 */
@Injectable()
export class WebhookDeliveryService {
  private readonly logger = new Logger(WebhookDeliveryService.name);
  private readonly policy: WebhookUrlPolicy;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly jobs: JobQueue,
    private readonly clock: Clock,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: DomainEvents,
    private readonly database: DatabaseService,
  ) {
    this.policy = { insecureTargets: insecureTargetList(config.webhookInsecureTargets) };
  }

  async deliver(deliveryId: string): Promise<WebhookAttemptOutcome> {
    const claimSeconds = claimSecondsFor(this.config.webhookTimeoutMs);
    const row = await this.webhooks.claim(deliveryId, this.clock.now(), claimSeconds);
    if (!row) return 'skipped';
    const body = JSON.stringify({ id: row.id, event: row.event, createdAt: row.createdAt, data: row.payload });
    let answer: { status: number; body: string } | undefined;
    let error: string | null = null;
    try {
      // One budget of WEBHOOK_TIMEOUT_MS for the whole attempt: resolving the name, connecting, the answer and its body.
      const timeoutMs = this.config.webhookTimeoutMs;
      const deadline = this.clock.now().getTime() + timeoutMs;
      const target = await withDeadline(
        resolveWebhookTarget(row.url, this.policy),
        timeoutMs,
        `No answer within ${timeoutMs} ms`,
      );
      const unix = Math.floor(this.clock.now().getTime() / 1000);
      answer = await postWebhook(
        target,
        {
          [SIGNATURE_HEADER]: signatureHeader(row.secret, unix, body),
          'user-agent': 'office-licences-webhooks/1',
          'webhook-id': row.id,
          'webhook-event': row.event,
        },
        body,
        Math.max(1, deadline - this.clock.now().getTime()),
        timeoutMs,
      );
      // Only a 2xx is delivered: a redirect is a failed attempt like a 5xx (postWebhook never follows one).
      if (answer.status < 200 || answer.status > 299) error = `The receiver answered ${answer.status}`;
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const now = this.clock.now();
    const result: AttemptResult = {
      status: 'delivered',
      responseStatus: answer?.status ?? null,
      responseBody: answer?.body ?? null,
      error,
      nextAttemptAt: null,
      now,
    };
    if (error) {
      const next = new Date(now.getTime() + this.config.webhookBackoffMs * 2 ** row.attempts);
      const giveUpAt = new Date(new Date(row.createdAt).getTime() + this.config.webhookRetryHours * 3_600_000);
      result.status = next > giveUpAt ? 'failed' : 'pending';
      if (result.status === 'pending') result.nextAttemptAt = next;
    }
    const attempts = await this.webhooks.recordAttempt(row.id, result);
    await this.countOnEndpoint(row.id, !error, now);
    if (result.status === 'pending') {
      this.jobs.add(
        DELIVER_WEBHOOK,
        { deliveryId: row.id, attempt: attempts },
        { delayMs: result.nextAttemptAt!.getTime() - now.getTime() },
      );
      return 'retry';
    }
    if (result.status === 'failed') {
      this.logger.warn(`Webhook delivery ${row.id} failed after ${attempts} attempts: ${error}`);
    }
    return result.status === 'delivered' ? 'delivered' : 'failed';
  }

  /**
   * The circuit breaker (docs/product.md §20.4): a receiver that keeps failing (black-holing,
   * down for good) is paused instead of holding a worker for WEBHOOK_TIMEOUT_MS per attempt for 24 hours; its
   * deliveries wait, queued, for Resume in Settings. Audited as the system's act, in the pause's transaction: whoever
   * sees the endpoint paused finds the audit row.
   */
  private async countOnEndpoint(deliveryId: string, ok: boolean, now: Date): Promise<void> {
    const rule = { failures: this.config.webhookPauseAfterFailures, minutes: this.config.webhookPauseAfterMinutes };
    const paused = await this.database.transaction(async () => {
      const endpoint = await this.webhooks.noteOutcome(deliveryId, ok, now, rule);
      if (endpoint) {
        await this.events.publish('webhook.pause', {
          success: true,
          resource: 'webhook',
          resourceId: endpoint.id,
          details: { url: endpoint.url, failures: rule.failures, minutes: rule.minutes },
        });
      }
      return endpoint;
    });
    if (paused) {
      this.logger.warn(`Webhook endpoint ${paused.url} paused after ${rule.failures} failed attempts in a row`);
    }
  }

  /** Re-queues pending deliveries whose job was lost (Redis emptied, process restarted). */
  async sweep(graceMs: number, limit = 500): Promise<number> {
    const stale = await this.webhooks.findStale(new Date(this.clock.now().getTime() - graceMs), limit);
    for (const { id, attempts } of stale) this.jobs.add(DELIVER_WEBHOOK, { deliveryId: id, attempt: attempts });
    if (stale.length) this.logger.log(`Re-queued ${stale.length} webhook delivery(ies)`);
    return stale.length;
  }
}
