import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type LicenseType = Api.LicenseKeyResponse['licenseType'];
export type UsageStatus = Api.LicenseKeyResponse['usageStatus'];

export type LicenseKey = Api.LicenseKeyResponse;

export type LicenseKeySummary = Api.LicenseKeySummaryResponse;

export type LicenseKeysPage = Api.LicenseKeyListResponse;

export interface LicenseKeysQuery {
  page: number;
  limit: number;
  productId: string;
  search: string;
}

export type LicenseManagedProduct = Api.LicenseManagedProductResponse;

export type CreateLicenseKeyRequest = Api.CreateLicenseKeyDto;

const LIST = { type: 'LicenseKeys' as const, id: 'LIST' };

export const licensesApi = api.injectEndpoints({
  endpoints: (build) => ({
    getLicenseManagedProducts: build.query<LicenseManagedProduct[], void>({
      query: () => 'license-managed-products',
      providesTags: [{ type: 'Products', id: 'LICENSE_MANAGED' }],
    }),
    getLicenseKeys: build.query<LicenseKeysPage, LicenseKeysQuery>({
      query: ({ page, limit, productId, search }) => {
        const params: Record<string, string> = { page: String(page), limit: String(limit) };
        if (productId) params.productId = productId;
        if (search.trim()) params.search = search.trim();
        return { url: 'license-keys', params };
      },
      providesTags: (result) => [
        LIST,
        ...(result?.licenseKeys ?? []).map((k) => ({ type: 'LicenseKeys' as const, id: k.id })),
      ],
    }),
    createLicenseKey: build.mutation<LicenseKey, CreateLicenseKeyRequest>({
      query: (body) => ({ url: 'license-keys', method: 'POST', body }),
      invalidatesTags: invalidatesFor('createLicenseKey'),
    }),
    updateLicenseKey: build.mutation<LicenseKey, { id: string; isActive: boolean }>({
      query: ({ id, isActive }) => ({ url: `license-keys/${id}`, method: 'PUT', body: { isActive } }),
      invalidatesTags: invalidatesFor('updateLicenseKey'),
    }),
    deleteLicenseKey: build.mutation<{ success: boolean; message: string }, string>({
      query: (id) => ({ url: `license-keys/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('deleteLicenseKey'),
    }),
  }),
});

export const {
  useGetLicenseManagedProductsQuery,
  useGetLicenseKeysQuery,
  useCreateLicenseKeyMutation,
  useUpdateLicenseKeyMutation,
  useDeleteLicenseKeyMutation,
} = licensesApi;
