import { createApi, fetchBaseQuery, type BaseQueryFn, type FetchArgs, type FetchBaseQueryError } from '@reduxjs/toolkit/query/react';

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

const rawBaseQuery = fetchBaseQuery({
  baseUrl: '/api',
  credentials: 'include',
  prepareHeaders: (headers) => {
    const token = accessTokenGetter?.();
    if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
    return headers;
  },
});

/**
 * The admin console registers how to renew its session (`POST /api/admin/refresh`) and what to do when that
 * fails. A 401 answer is then retried once with the renewed token; login and refresh themselves never are.
 */
export interface SessionRenewal {
  refresh: () => Promise<boolean>;
  onSessionLost: () => void;
}
let sessionRenewal: SessionRenewal | undefined;
export function setSessionRenewal(renewal: SessionRenewal | undefined): void {
  sessionRenewal = renewal;
}

const NEVER_RENEWED = /^\/?admin\/(login|refresh)$/;

export const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (args, queryApi, extra) => {
  let result = await rawBaseQuery(args, queryApi, extra);
  const url = typeof args === 'string' ? args : args.url;
  if (result.error?.status !== 401 || !sessionRenewal || NEVER_RENEWED.test(url) || !accessTokenGetter?.()) return result;
  const renewal = sessionRenewal;
  if (await renewal.refresh()) {
    result = await rawBaseQuery(args, queryApi, extra);
    if (result.error?.status !== 401) return result;
  }
  renewal.onSessionLost();
  return result;
};

export const api = createApi({
  reducerPath: 'api',
  baseQuery,
  tagTypes: TAG_TYPES,
  refetchOnFocus: false,
  refetchOnReconnect: false,
  keepUnusedDataFor: Infinity,
  endpoints: () => ({}),
});
