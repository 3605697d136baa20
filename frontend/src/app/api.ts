import {
  createApi,
  fetchBaseQuery,
  type BaseQueryFn,
  type FetchArgs,
  type FetchBaseQueryError,
} from '@reduxjs/toolkit/query/react';
import { currentAccessToken, withSessionRenewal } from './authorizedFetch';

/**
 * The one RTK Query API of the app. Its endpoints are generated from the OpenAPI document (`api/generated/`, injected
 * here) and get their cache tags in `api/index.ts`, which is what the app imports. docs/product.md §8.1: requests
 * carry credentials, JSON bodies are JSON typed, no retries, no refetch on focus, cached data never goes stale unless
 * an endpoint says otherwise.
 */
export const TAG_TYPES = [
  'Stats',
  'Products',
  'Redemptions',
  'VoucherCodes',
  'LicenseKeys',
  'Me',
  'Sessions',
  'Webhooks',
  'ApiTokens',
] as const;
export type TagType = (typeof TAG_TYPES)[number];

/**
 * Adds an `Authorization` header to every request when a token getter is registered. The admin console
 * registers one once it signs in (`setAccessTokenGetter` in `authorizedFetch.ts`), so the public pages carry
 * no auth code.
 */
const rawBaseQuery = fetchBaseQuery({
  // The document's paths carry the /api prefix.
  baseUrl: '',
  credentials: 'include',
  prepareHeaders: (headers) => {
    const token = currentAccessToken();
    if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
    return headers;
  },
});

const NEVER_RENEWED = /^\/api\/admin\/(login|refresh)$/;

/** A 401 answer is retried once with a renewed token (`withSessionRenewal`); login and refresh themselves never are. */
export const baseQuery: BaseQueryFn<string | FetchArgs, unknown, FetchBaseQueryError> = async (
  args,
  queryApi,
  extra,
) => {
  const url = typeof args === 'string' ? args : args.url;
  const send = () => rawBaseQuery(args, queryApi, extra);
  if (NEVER_RENEWED.test(url)) return send();
  return withSessionRenewal(send, (result) => result.error?.status === 401);
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
