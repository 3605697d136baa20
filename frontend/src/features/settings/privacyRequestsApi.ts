import { api } from '../../app/api';
import type * as Api from '../../api/generated';

export type PrivacyRequest = Api.PrivacyRequestRow;

/** `GET /api/admin/privacy-requests` (settings.access): the licence centre's requests, without personal data. */
export const privacyRequestsApi = api.injectEndpoints({
  endpoints: (build) => ({
    privacyRequests: build.query<{ requests: PrivacyRequest[] }, void>({
      query: () => 'admin/privacy-requests',
      keepUnusedDataFor: 0,
    }),
  }),
});

export const { usePrivacyRequestsQuery } = privacyRequestsApi;
