import { Injectable, Logger } from '@nestjs/common';
import { Inventory, maskInventory, NO_PERMISSIONS } from '../../common/inventory/inventory';
import { Permission } from '../../common/permissions';
import { Clock } from '../../common/clock';
import { CachedValue } from '../../common/utils/cached-value';
import { JobQueue } from '../jobs/job-queue';
import { WebhookRepository } from './webhook.repository';
import { DELIVER_WEBHOOK } from './webhook.jobs';

/** The events an endpoint may subscribe to (docs/product.md §20.4). */
export const WEBHOOK_EVENTS = [
  'redemption.created',
  'redemption.license_assigned',
  'email.failed',
  'pool.low',
  'voucher.voided',
  // The licence centre's erasure (docs/product.md §21.3): ids and time only, no personal data.
  'customer.erased',
  // A report to a marketplace gave up after its retry window (docs/product.md §24.11).
  'marketplace.report.dead',
  // A redemption held for review, and staff's decision (docs/product.md §25.4).
  'redemption.held',
  'redemption.approved',
  'redemption.refused',
] as const;

export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number];

/**
 * The inventory a webhook payload may carry, declared like a response's: a receiver is nobody's session, so any
 * such field is masked (docs/product.md §10.6) before the payload is stored and sent (docs/architecture.md "Inventory fields").
 */
export class WebhookPayload {
  @Inventory(Permission.LicensesView) licenseKey?: string;
  @Inventory(Permission.LicensesView) productKey?: string;
}

/** What "Send test event" delivers; not subscribable. */
export const WEBHOOK_TEST_EVENT = 'webhook.test';

/**
 * How long an instance trusts what it last read of the endpoints' subscriptions: an endpoint added or deleted through
 * another instance is seen here within this time (through this instance, at once).
 */
export const SUBSCRIPTIONS_TTL_MS = 5_000;

/**
 * Where the rest of the service announces an event: `emit` writes one outbox row per active endpoint subscribed to
 * it (one INSERT … SELECT), then queues each. An event no endpoint subscribes to costs nothing: the subscribed
 * events are read at most every SUBSCRIPTIONS_TTL_MS (one small statement), not per event, so the redemption
 * path gains no statement while no endpoint listens for `redemption.created`. It never throws and never waits for
 * a receiver. Call it after the work it announces is committed.
 */
@Injectable()
export class WebhookEvents {
  private readonly logger = new Logger(WebhookEvents.name);
  private readonly subscribed: CachedValue<Set<string>>;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly jobs: JobQueue,
    clock: Clock,
  ) {
    this.subscribed = new CachedValue(
      async () => new Set(await this.webhooks.subscribedEvents()),
      () => SUBSCRIPTIONS_TTL_MS,
      clock,
    );
  }

  async emit(event: WebhookEvent, data: Record<string, unknown>): Promise<void> {
    try {
      if (!(await this.subscribed.get()).has(event)) return;
      const rows = await this.webhooks.insertForEvent(event, maskInventory(data, WebhookPayload, NO_PERMISSIONS));
      for (const { id } of rows) this.jobs.add(DELIVER_WEBHOOK, { deliveryId: id, attempt: 0 });
    } catch (err) {
      // The event is lost, the work it announces is not: log and go on.
      this.logger.error(`Could not record the ${event} webhook event: ${err instanceof Error ? err.message : err}`);
    }
  }

  /** An endpoint was added or deleted here: the next event reads the subscriptions again. */
  subscriptionsChanged(): void {
    this.subscribed.invalidate();
  }
}
