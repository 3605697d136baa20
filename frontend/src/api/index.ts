import type { FetchArgs } from '@reduxjs/toolkit/query';
import type { TagType } from '../app/api';
import { currentCustomerToken } from '../app/authorizedFetch';
import { CHANGES, invalidatesFor, NOT_RTK, type Change, type MutationName } from '../app/invalidation';
import { generatedApi } from './generated/endpoints';

/**
 * The app's API client: the endpoints, hooks and types generated from the OpenAPI document (`generated/endpoints.ts`,
 * `npm run api:generate`), with what the document does not say added here: the cache tags (what each read provides;
 * what each change invalidates is `app/invalidation.ts`), how long an unused answer is kept, and the licence
 * centre's token. Import endpoints, hooks and types from here, never from `generated/`.
 */
export * from './generated/endpoints';

/** A list's tags: the list and each of its rows. */
function listTags<T extends TagType>(type: T, rows: ReadonlyArray<{ id: string }> = []) {
  return [{ type, id: 'LIST' }, ...rows.map((row) => ({ type, id: row.id }))];
}

/** Every mutation invalidates what its `app/invalidation.ts` entry says. */
const invalidations = Object.fromEntries(
  (Object.keys(CHANGES) as Change[])
    .filter((change): change is MutationName => !(NOT_RTK as readonly string[]).includes(change))
    .map((name) => [name, { invalidatesTags: invalidatesFor(name) }]),
) as Record<MutationName, { invalidatesTags: TagType[] }>;

/**
 * A route the document secures with the licence centre's customer token (`security: customer`): the request carries it
 * in its own header, which the base query leaves alone (the console's token getter is never registered there).
 */
function withCustomerToken(definition: { query?: (arg: never) => string | FetchArgs }): void {
  const query = definition.query!;
  definition.query = (arg) => {
    const args = query(arg);
    const request = typeof args === 'string' ? { url: args } : args;
    return { ...request, headers: { ...request.headers, Authorization: `Bearer ${currentCustomerToken() ?? ''}` } };
  };
}

export const client = generatedApi.enhanceEndpoints({
  endpoints: {
    ...invalidations,
    /** The signed-in user; cached 5 minutes, no retry (docs/product.md §8.3). */
    authControllerMe: { providesTags: ['Me'], keepUnusedDataFor: 300 },
    sessionsControllerList: { providesTags: ['Sessions'] },
    apiTokensControllerList: { providesTags: (result) => listTags('ApiTokens', result) },
    statsControllerAllTime: { providesTags: [{ type: 'Stats', id: 'LIST' }] },
    statsControllerForPeriod: {
      providesTags: (_result, _error, period) => [
        { type: 'Stats', id: 'LIST' },
        { type: 'Stats', id: period },
      ],
    },
    productControllerList: { providesTags: (result) => listTags('Products', result) },
    productControllerGet: { providesTags: (_result, _error, id) => [{ type: 'Products', id }] },
    // Tagged as products: whatever refreshes the product cards (a redemption, a key added) refreshes the forecast.
    poolControllerForecast: { providesTags: [{ type: 'Products', id: 'FORECAST' }] },
    licenseKeyControllerLicenseManagedProducts: { providesTags: [{ type: 'Products', id: 'LICENSE_MANAGED' }] },
    licenseKeyControllerList: { providesTags: (result) => listTags('LicenseKeys', result?.licenseKeys) },
    redemptionAdminControllerList: { providesTags: (result) => listTags('Redemptions', result?.redemptions) },
    redemptionAdminControllerFindOne: { providesTags: (_result, _error, id) => [{ type: 'Redemptions', id }] },
    // The redemption's own tag: a resend or an assignment refreshes its history with its details.
    redemptionHistoryControllerGet: { providesTags: (_result, _error, id) => [{ type: 'Redemptions', id }] },
    voucherControllerList: { providesTags: [{ type: 'VoucherCodes', id: 'LIST' }] },
    /**
     * A product's upload batches with live counts. Every change of codes (upload, void, delete: `VoucherCodes`) and
     * of redemptions (redeem, export: `Redemptions`, also after their real-time events) moves them.
     */
    voucherControllerListBatches: {
      providesTags: [
        { type: 'VoucherCodes', id: 'LIST' },
        { type: 'Redemptions', id: 'LIST' },
      ],
    },
    webhookControllerList: { providesTags: (result) => listTags('Webhooks', result) },
    // The review queue (docs/product.md §25.5): a decision, a redemption and `reviewUpdate` refresh it.
    redemptionReviewControllerList: { providesTags: [{ type: 'Redemptions', id: 'REVIEWS' }] },
    webhookControllerDeliveries: {
      providesTags: (_result, _error, id) => [{ type: 'Webhooks', id }],
      keepUnusedDataFor: 0,
    },
    // Read again each time they are shown, never kept for later.
    privacyRequestsControllerList: { keepUnusedDataFor: 0 },
    // The licence list is read again by its page, never kept.
    customerCentreControllerLicences: (definition) => {
      withCustomerToken(definition);
      definition.keepUnusedDataFor = 0;
    },
    customerCentreControllerResend: withCustomerToken,
    customerCentreControllerErase: withCustomerToken,
    /** docs/product.md §10.4: a verified success token is cached for 5 minutes. */
    redemptionControllerSuccessToken: { keepUnusedDataFor: 300 },
  },
});
