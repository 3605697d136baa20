import { api } from '../../app/api';
import type * as Api from '../../api/generated';

/** `GET /api/public-config`: the support e-mail, company name and postal address shown on every public page. */
export type PublicConfig = Api.PublicConfigResponse;

export const siteApi = api.injectEndpoints({
  endpoints: (build) => ({
    getPublicConfig: build.query<PublicConfig, void>({ query: () => 'public-config' }),
  }),
});

export const { useGetPublicConfigQuery } = siteApi;
