import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobRegistry } from '../jobs/job-registry';
import { RetentionRegistry } from '../retention/retention.registry';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookRepository } from './webhook.repository';
import { DELIVER_WEBHOOK, SWEEP_WEBHOOKS, WEBHOOK_QUEUE } from './webhook.jobs';

/** Settled webhook deliveries: the log shows the last 20 per endpoint; a month is plenty to investigate. */
const WEBHOOK_DELIVERY_DAYS = 30;

/**
 * The webhook deliveries' jobs: one attempt per job (the retries are the handler's: it records each attempt and
 * queues the next with its backoff), the sweep of deliveries whose job was lost, and their retention.
 */
@Injectable()
export class WebhookDeliveryJob implements OnModuleInit {
  constructor(
    private readonly jobs: JobRegistry,
    private readonly deliveries: WebhookDeliveryService,
    private readonly webhooks: WebhookRepository,
    private readonly retention: RetentionRegistry,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.jobs.register(DELIVER_WEBHOOK, {
      queue: WEBHOOK_QUEUE,
      // Enough in parallel that one slow receiver holds no other back.
      concurrency: 20,
      jobId: ({ deliveryId, attempt }) => `${deliveryId}:${attempt}`,
      keepFailed: 1000,
      handle: ({ deliveryId }) => this.deliver(deliveryId),
    });
    this.jobs.register(SWEEP_WEBHOOKS, { handle: () => this.sweep() });
    this.jobs.schedule(SWEEP_WEBHOOKS, this.config.mailSweepIntervalMs, {});
    this.retention.deletes('webhookDeliveries', (batch) => this.webhooks.deleteOlderThan(WEBHOOK_DELIVERY_DAYS, batch));
  }

  deliver(deliveryId: string) {
    return this.deliveries.deliver(deliveryId);
  }

  /** Pending webhook deliveries due longer ago than the e-mail sweep's grace, with no live claim: their job was lost. */
  sweep(): Promise<number> {
    return this.deliveries.sweep(this.config.mailSweepAfterMs);
  }
}
