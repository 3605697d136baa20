import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

/** The server's list (backend/src/modules/webhook/webhook-events.ts); it refuses any other with a 400. */
export const WEBHOOK_EVENTS = [
  'redemption.created',
  'redemption.license_assigned',
  'email.failed',
  'pool.low',
  'voucher.voided',
  'customer.erased',
] as const;

export type WebhookEndpoint = Api.WebhookEndpointResponse;

export type WebhookDelivery = Api.WebhookDeliveryResponse;

/** docs/product.md §20.4, Settings → Webhooks (webhooks.manage). */
export const webhooksApi = api.injectEndpoints({
  endpoints: (build) => ({
    webhooks: build.query<WebhookEndpoint[], void>({
      query: () => 'webhooks',
      providesTags: (result) => [
        { type: 'Webhooks', id: 'LIST' },
        ...(result ?? []).map((w) => ({ type: 'Webhooks' as const, id: w.id })),
      ],
    }),
    createWebhook: build.mutation<WebhookEndpoint & { secret: string }, { url: string; events: string[] }>({
      query: (body) => ({ url: 'webhooks', method: 'POST', body }),
      invalidatesTags: invalidatesFor('createWebhook'),
    }),
    deleteWebhook: build.mutation<{ success: boolean; message: string }, string>({
      query: (id) => ({ url: `webhooks/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('deleteWebhook'),
    }),
    webhookDeliveries: build.query<{ deliveries: WebhookDelivery[] }, string>({
      query: (id) => `webhooks/${id}/deliveries`,
      providesTags: (_r, _e, id) => [{ type: 'Webhooks', id }],
      keepUnusedDataFor: 0,
    }),
    resumeWebhook: build.mutation<{ success: boolean; message: string; requeued: number }, string>({
      query: (id) => ({ url: `webhooks/${id}/resume`, method: 'POST' }),
      invalidatesTags: invalidatesFor('resumeWebhook'),
    }),
    sendTestWebhook: build.mutation<{ message: string; deliveryId: string }, string>({
      query: (id) => ({ url: `webhooks/${id}/test`, method: 'POST' }),
      invalidatesTags: invalidatesFor('sendTestWebhook'),
    }),
  }),
});

export const {
  useWebhooksQuery,
  useCreateWebhookMutation,
  useDeleteWebhookMutation,
  useWebhookDeliveriesQuery,
  useSendTestWebhookMutation,
  useResumeWebhookMutation,
} = webhooksApi;
