import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type Product = Api.ProductResponse;

export type UploadReport = Api.UploadResponse;

/** docs/product.md §19.3 answer of `POST /api/products/{id}/voucher-codes/void`. */
export type VoidReport = Api.VoidResponse;

/** docs/product.md §20.2 `GET /api/license-pool/forecast`: one licence-managed product's pool. */
export type PoolForecast = Api.PoolForecastResponse;

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
