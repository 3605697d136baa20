import type * as Api from '../../api';

/** docs/product.md §20.4, Settings → Webhooks (webhooks.manage). */
export type WebhookEndpoint = Api.WebhookEndpointResponse;

export type WebhookDelivery = Api.WebhookDeliveryResponse;
