import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type { Pagination } from '../redemptions/redemptionsApi';

export type LicenseType = 'single-user' | 'volume';
export type UsageStatus = 'available' | 'partially-used' | 'fully-used';

export interface LicenseKey {
  id: string;
  productId: string;
  productName: string;
  licenseKey: string;
  downloadLink: string;
  licenseType: LicenseType;
  maxActivations: number;
  currentActivations: number;
  isActive: boolean;
  usageStatus?: UsageStatus;
  createdAt: string;
  updatedAt: string;
}

export interface LicenseKeySummary {
  totalKeys: number;
  active: number;
  available: number;
  partiallyUsed: number;
  fullyUsed: number;
}

export interface LicenseKeysPage {
  licenseKeys: LicenseKey[];
  summary: LicenseKeySummary;
  pagination: Pagination;
}

export interface LicenseKeysQuery {
  page: number;
  limit: number;
  productId: string;
  search: string;
}

export interface LicenseManagedProduct {
  id: string;
  name: string;
  status: string;
  downloadLink: string;
  isLicenseManaged: boolean;
}

export interface CreateLicenseKeyRequest {
  productId: string;
  licenseKey: string;
  downloadLink: string;
  licenseType: LicenseType;
  maxActivations?: number;
}

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
