import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';

export interface Product {
  id: string;
  name: string;
  downloadLink: string;
  productKey: string | null;
  emailTemplate: string;
  emailSubject: string;
  status: string;
  isLicenseManaged: boolean;
  createdAt: string;
  unredeemedCount: number;
  redeemedCount: number;
  /** Codes voided by a refund before redemption (docs/product.md §19.3). */
  voidCount?: number;
  totalCount: number;
}

export interface UploadReport {
  message: string;
  inserted: number;
  duplicates: number;
  invalid: number;
  invalidSamples: string[];
}

/** docs/product.md §19.3 answer of `POST /api/products/{id}/voucher-codes/void`. */
export interface VoidReport {
  message: string;
  voided: number;
  refundedAfterRedemption: Array<{
    code: string;
    redemptionId: string | null;
    redeemedAt: string | null;
    refundedAt: string | null;
  }>;
  unknown: number;
  alreadyVoid: number;
  invalid: number;
  invalidSamples: string[];
}

/** docs/product.md §20.2 `GET /api/license-pool/forecast`: one licence-managed product's pool. */
export interface PoolForecast {
  productId: string;
  productName: string;
  availableActivations: number;
  redeemedLast7Days: number;
  perDay: number;
  /** Whole days of keys left at the last 7 days' rate; null when nothing was redeemed in them. */
  daysLeft: number | null;
  /** Under POOL_ALERT_DAYS days or POOL_ALERT_MIN activations (the server's settings): the warning colour. */
  low: boolean;
}

export const productsApi = api.injectEndpoints({
  endpoints: (build) => ({
    products: build.query<Product[], void>({
      query: () => 'products',
      providesTags: (result) => [
        { type: 'Products', id: 'LIST' },
        ...(result ?? []).map((p) => ({ type: 'Products' as const, id: p.id })),
      ],
    }),
    // Tagged as products: whatever refreshes the product cards (a redemption, a key added) refreshes the forecast.
    poolForecast: build.query<PoolForecast[], void>({
      query: () => 'license-pool/forecast',
      providesTags: [{ type: 'Products', id: 'FORECAST' }],
    }),
    product: build.query<Product, string>({
      query: (id) => `products/${encodeURIComponent(id)}`,
      providesTags: (_r, _e, id) => [{ type: 'Products', id }],
    }),
    updateEmailTemplate: build.mutation<Product, { id: string; emailSubject: string; emailTemplate: string }>({
      query: ({ id, ...body }) => ({ url: `products/${id}`, method: 'PUT', body }),
      invalidatesTags: invalidatesFor('updateEmailTemplate'),
    }),
    sendTestEmail: build.mutation<
      { message: string },
      { id: string; to: string; emailSubject: string; emailTemplate: string }
    >({
      query: ({ id, ...body }) => ({ url: `products/${id}/test-email`, method: 'POST', body }),
      invalidatesTags: invalidatesFor('sendTestEmail'),
    }),
  }),
});

export const {
  useProductsQuery,
  usePoolForecastQuery,
  useProductQuery,
  useUpdateEmailTemplateMutation,
  useSendTestEmailMutation,
} = productsApi;
