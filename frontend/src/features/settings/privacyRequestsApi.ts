import { api } from '../../app/api';

export interface PrivacyRequest {
  id: string;
  kind: 'link-sent' | 'link-limit' | 'data-export' | 'erasure';
  at: string;
  customerId: string | null;
  redemptions: number | null;
}

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
