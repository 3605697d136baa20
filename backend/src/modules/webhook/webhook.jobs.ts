import { defineJob } from '../jobs/job';

/** The webhook deliveries' queue: a receiver may take WEBHOOK_TIMEOUT_MS to answer. */
export const WEBHOOK_QUEUE = 'webhook';

/**
 * Payload `{deliveryId, attempt}`: one attempt of a webhook delivery (the row says what and where). `attempt`
 * (attempts already made) keys the job, so the retry a running attempt schedules is not taken for a duplicate of it.
 */
export const DELIVER_WEBHOOK = defineJob<{ deliveryId: string; attempt: number }>('webhook.deliver', {
  formerNames: ['deliver-webhook'],
});

/** Re-queues pending webhook deliveries whose job was lost. */
export const SWEEP_WEBHOOKS = defineJob<object>('webhook.sweep-deliveries', { formerNames: ['sweep-webhooks'] });
