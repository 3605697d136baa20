import { Module } from '@nestjs/common';
import { AuditModule } from '../audit/audit.module';
import { WebhookController } from './webhook.controller';
import { WebhookDeliveryService } from './webhook-delivery.service';
import { WebhookEndpointService } from './webhook-endpoint.service';
import { WebhookEvents } from './webhook-events';
import { WebhookDeliveryJob } from './webhook-delivery.job';
import { WebhookListener } from './webhook.listener';
import { WebhookRepository } from './webhook.repository';

/**
 * Outgoing webhooks (docs/product.md §20.4): endpoints and their delivery outbox. Other modules announce events through
 * `WebhookEvents.emit`; the deliveries run as jobs (`WebhookDeliveryJob`; the queue, `JobQueue`, is global).
 */
@Module({
  imports: [AuditModule],
  controllers: [WebhookController],
  providers: [
    WebhookRepository,
    WebhookEvents,
    WebhookListener,
    WebhookDeliveryService,
    WebhookEndpointService,
    WebhookDeliveryJob,
  ],
  exports: [WebhookEvents, WebhookDeliveryService, WebhookRepository],
})
export class WebhookModule {}
