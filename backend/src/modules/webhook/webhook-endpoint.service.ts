import { BadRequestException, ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { Clock } from '../../common/clock';
import { randomBytes } from 'crypto';
import { RequestActor } from '../../common/utils/request-actor';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { JobQueue } from '../jobs/job-queue';
import { CreateWebhookDto } from './dto/webhook.dto';
import { WEBHOOK_TEST_EVENT, WebhookEvents } from './webhook-events';
import { insecureTargetList, resolveWebhookTarget, WebhookUrlError, WebhookUrlPolicy } from './webhook-url-guard';
import { WebhookDeliveryView, WebhookEndpointView, WebhookRepository } from './webhook.repository';
import { DELIVER_WEBHOOK } from './webhook.jobs';
import { DomainEvents } from '../../events/domain-events.service';

export const WEBHOOK_MESSAGES = {
  notFound: 'Webhook not found.',
  deleted: 'Webhook deleted.',
  testQueued: 'Test event queued.',
  resumed: 'Webhook resumed.',
  notPaused: 'This webhook is not paused.',
} as const;

/** The delivery log shown per endpoint in Settings. */
export const RECENT_DELIVERIES = 20;

/** Settings → Webhooks (docs/product.md §20.4, permission webhooks.manage): register, list, delete, test. Audited. */
@Injectable()
export class WebhookEndpointService {
  private readonly policy: WebhookUrlPolicy;

  constructor(
    private readonly webhooks: WebhookRepository,
    private readonly domainEvents: DomainEvents,
    private readonly jobs: JobQueue,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly events: WebhookEvents,
    private readonly clock: Clock,
  ) {
    this.policy = { insecureTargets: insecureTargetList(config.webhookInsecureTargets) };
  }

  /** The URL is checked (https, public address after DNS) before anything is written; the secret is answered once. */
  async create(dto: CreateWebhookDto, actor: RequestActor): Promise<WebhookEndpointView & { secret: string }> {
    try {
      await resolveWebhookTarget(dto.url, this.policy);
    } catch (err) {
      if (err instanceof WebhookUrlError) throw new BadRequestException(err.message);
      throw err;
    }
    const secret = `whsec_${randomBytes(32).toString('base64url')}`;
    const endpoint = await this.webhooks.createEndpoint(dto.url, dto.events, secret);
    this.events.subscriptionsChanged();
    await this.domainEvents.publish('webhook.create', {
      ...actor,
      success: true,
      resource: 'webhook',
      resourceId: endpoint.id,
      details: { url: endpoint.url, events: endpoint.events },
    });
    return { ...endpoint, secret };
  }

  list(): Promise<WebhookEndpointView[]> {
    return this.webhooks.listEndpoints();
  }

  async remove(id: string, actor: RequestActor): Promise<{ success: true; message: string }> {
    const endpoint = await this.webhooks.findEndpoint(id);
    if (!endpoint || !(await this.webhooks.deleteEndpoint(id))) throw new NotFoundException(WEBHOOK_MESSAGES.notFound);
    this.events.subscriptionsChanged();
    await this.domainEvents.publish('webhook.delete', {
      ...actor,
      success: true,
      resource: 'webhook',
      resourceId: id,
      details: { url: endpoint.url },
    });
    return { success: true, message: WEBHOOK_MESSAGES.deleted };
  }

  /** Resume a paused endpoint: its queued deliveries are sent now (each within its retry window, else one last try). */
  async resume(id: string, actor: RequestActor): Promise<{ success: true; message: string; requeued: number }> {
    const endpoint = await this.webhooks.findEndpoint(id);
    if (!endpoint) throw new NotFoundException(WEBHOOK_MESSAGES.notFound);
    const queued = await this.webhooks.resume(id, this.clock.now());
    if (!queued) throw new ConflictException(WEBHOOK_MESSAGES.notPaused);
    for (const delivery of queued) {
      this.jobs.add(DELIVER_WEBHOOK, { deliveryId: delivery.id, attempt: delivery.attempts });
    }
    await this.domainEvents.publish('webhook.resume', {
      ...actor,
      success: true,
      resource: 'webhook',
      resourceId: id,
      details: { url: endpoint.url, requeued: queued.length },
    });
    return { success: true, message: WEBHOOK_MESSAGES.resumed, requeued: queued.length };
  }

  async deliveries(id: string): Promise<{ deliveries: WebhookDeliveryView[] }> {
    if (!(await this.webhooks.findEndpoint(id))) throw new NotFoundException(WEBHOOK_MESSAGES.notFound);
    return { deliveries: await this.webhooks.recentDeliveries(id, RECENT_DELIVERIES) };
  }

  /** "Send test event": a `webhook.test` delivery through the same outbox, signing and retries as a real one. */
  async sendTest(id: string): Promise<{ message: string; deliveryId: string }> {
    const deliveryId = await this.webhooks.insertForEndpoint(id, WEBHOOK_TEST_EVENT, {
      message: 'This is a test event.',
    });
    if (!deliveryId) throw new NotFoundException(WEBHOOK_MESSAGES.notFound);
    this.jobs.add(DELIVER_WEBHOOK, { deliveryId, attempt: 0 });
    return { message: WEBHOOK_MESSAGES.testQueued, deliveryId };
  }
}
