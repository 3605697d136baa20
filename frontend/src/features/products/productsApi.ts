import { api } from '../../app/api';

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
  totalCount: number;
}

export interface UploadReport {
  message: string;
  inserted: number;
  duplicates: number;
  invalid: number;
  invalidSamples: string[];
}

export const productsApi = api.injectEndpoints({
  endpoints: (build) => ({
    products: build.query<Product[], void>({
      query: () => 'products',
      providesTags: (result) => [{ type: 'Products', id: 'LIST' }, ...(result ?? []).map((p) => ({ type: 'Products' as const, id: p.id }))],
    }),
    product: build.query<Product, string>({
      query: (id) => `products/${encodeURIComponent(id)}`,
      providesTags: (_r, _e, id) => [{ type: 'Products', id }],
    }),
    updateEmailTemplate: build.mutation<Product, { id: string; emailSubject: string; emailTemplate: string }>({
      query: ({ id, ...body }) => ({ url: `products/${id}`, method: 'PUT', body }),
      invalidatesTags: (_r, _e, { id }) => [{ type: 'Products', id }, { type: 'Products', id: 'LIST' }],
    }),
    sendTestEmail: build.mutation<{ message: string }, { id: string; to: string; emailSubject: string; emailTemplate: string }>({
      query: ({ id, ...body }) => ({ url: `products/${id}/test-email`, method: 'POST', body }),
    }),
  }),
});

export const { useProductsQuery, useProductQuery, useUpdateEmailTemplateMutation, useSendTestEmailMutation } = productsApi;
