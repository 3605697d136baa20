import { createApi, fetchBaseQuery } from '@reduxjs/toolkit/query/react';

/**
 * The one RTK Query API of the app. Features add their endpoints with `api.injectEndpoints` in
 * `features/<feature>/<feature>Api.ts`. SPEC §7: requests carry credentials, JSON bodies are JSON typed,
 * no retries, no refetch on focus, cached data never goes stale unless an endpoint says otherwise.
 */
export const TAG_TYPES = ['Stats', 'Products', 'Redemptions', 'VoucherCodes', 'LicenseKeys', 'Me'] as const;
export type TagType = (typeof TAG_TYPES)[number];

/**
 * Adds an `Authorization` header to every request when a token getter is registered. The admin console
 * registers one once it signs in (`setAccessTokenGetter`), so the public pages carry no auth code.
 */
let accessTokenGetter: (() => string | null | undefined) | undefined;
export function setAccessTokenGetter(getter: typeof accessTokenGetter): void {
  accessTokenGetter = getter;
}

export const baseQuery = fetchBaseQuery({
  baseUrl: '/api',
  credentials: 'include',
  prepareHeaders: (headers) => {
    const token = accessTokenGetter?.();
    if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
    return headers;
  },
});

export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: TAG_TYPES,
  refetchOnFocus: false,
  refetchOnReconnect: false,
  keepUnusedDataFor: Infinity,
  endpoints: () => ({}),
});
