import { Module } from '@nestjs/common';
import { WebhookController } from './webhook.controller';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookEvents } from './webhook-events';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookListener } from './webhook.listener';
import { WebhookRepository } from './webhook.repository';

/**
 * Outgoing webhooks (docs/product.md §20.4): endpoints and their delivery outbox. Other modules publish domain events;
 * this module's `WebhookListener` turns the subscribed ones into deliveries (`WebhookEvents.emit`), which run as jobs
 * (`WebhookDeliveryJob`; the queue, `JobQueue`, is global). It imports no module: its audit rows go through events.
 */
@Module({
  controllers: [WebhookController],
  providers: [
    WebhookRepository,
    WebhookEvents,
    WebhookListener,
    WebhookDeliveryService,
    WebhookEndpointService,
    WebhookDeliveryJob,
  ],
})
export class WebhookModule {}
