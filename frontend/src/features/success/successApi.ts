import { api } from '../../app/api';
import type * as Api from '../../api/generated';

/** GET /api/success-token/{token}: what a success page shows. */
export type SuccessTokenView = Api.SuccessTokenResponse;

/** docs/product.md §10.4: a verified token is cached for 5 minutes. */
export const TOKEN_CACHE_SECONDS = 300;

export const successApi = api.injectEndpoints({
  endpoints: (build) => ({
    getSuccessToken: build.query<SuccessTokenView, string>({
      query: (token) => `success-token/${encodeURIComponent(token)}`,
      keepUnusedDataFor: TOKEN_CACHE_SECONDS,
    }),
  }),
});

export const { useGetSuccessTokenQuery } = successApi;
