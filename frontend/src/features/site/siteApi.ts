import { api } from '../../app/api';

/** `GET /api/public-config`: the support e-mail, company name and postal address shown on every public page. */
export interface PublicConfig {
  supportEmail: string;
  companyName: string;
  companyAddress: string;
  /** The single sign-on provider's name ("Sign in with …" on the login page); null or absent when off. */
  ssoDisplayName?: string | null;
}

export const siteApi = api.injectEndpoints({
  endpoints: (build) => ({
    getPublicConfig: build.query<PublicConfig, void>({ query: () => 'public-config' }),
  }),
});

export const { useGetPublicConfigQuery } = siteApi;
