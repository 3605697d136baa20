import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type CleanSystemResult = Api.CleanupResponse;

export const settingsApi = api.injectEndpoints({
  endpoints: (build) => ({
    cleanSystem: build.mutation<CleanSystemResult, void>({
      query: () => ({ url: 'admin/cleanup-redeemed', method: 'DELETE' }),
      invalidatesTags: invalidatesFor('cleanSystem'),
    }),
  }),
});

export const { useCleanSystemMutation } = settingsApi;
