import { api } from '../../app/api';

export interface CleanSystemResult {
  success: boolean;
  message: string;
  deleted: { voucherCodes: number; customers: number; redemptions: number; licenseAssignments: number };
}

export const settingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    cleanSystem: build.mutation<CleanSystemResult, void>({
      query: () => ({ url: 'admin/cleanup-redeemed', method: 'DELETE' }),
      invalidatesTags: ['Stats', 'Products', 'Redemptions', 'VoucherCodes', 'LicenseKeys'],
    }),
  }),
});

export const { useCleanSystemMutation } = settingsApi;
