import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';

export interface CleanSystemResult {
  success: boolean;
  message: string;
  deleted: { voucherCodes: number; customers: number; redemptions: number; licenseAssignments: number };
}

export const settingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    cleanSystem: build.mutation<CleanSystemResult, void>({
      query: () => ({ url: 'admin/cleanup-redeemed', method: 'DELETE' }),
      invalidatesTags: invalidatesFor('cleanSystem'),
    }),
  }),
});

export const { useCleanSystemMutation } = settingsApi;
