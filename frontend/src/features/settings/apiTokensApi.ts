import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

/** What a token may hold: the server's data permissions (backend TOKEN_PERMISSIONS); it refuses any other with a 400. */
export const TOKEN_PERMISSIONS = [
  'dashboard.view',
  'vouchers.view',
  'licenses.view',
  'redemptions.delete',
  'export.redeemed-data',
  'export.unredeemed-vouchers',
  'export.redeemed-vouchers',
  'vouchers.upload',
  'vouchers.delete',
  'vouchers.void',
  'products.edit',
  'licenses.manage',
  'licenses.assign',
  'emails.resend',
  'emails.fix-pending',
] as const;

export type ApiToken = Api.ApiTokenResponse;

export type CreatedApiToken = Api.CreatedApiTokenResponse;

/** Settings → API tokens (api-tokens.manage, admin): tokens for integrations, shown once at creation. */
export const apiTokensApi = api.injectEndpoints({
  endpoints: (build) => ({
    apiTokens: build.query<ApiToken[], void>({
      query: () => 'admin/api-tokens',
      providesTags: (result) => [
        { type: 'ApiTokens', id: 'LIST' },
        ...(result ?? []).map((t) => ({ type: 'ApiTokens' as const, id: t.id })),
      ],
    }),
    createApiToken: build.mutation<CreatedApiToken, { name: string; permissions: string[]; expiresInDays: number }>({
      query: (body) => ({ url: 'admin/api-tokens', method: 'POST', body }),
      invalidatesTags: invalidatesFor('createApiToken'),
    }),
    revokeApiToken: build.mutation<{ success: boolean }, string>({
      query: (id) => ({ url: `admin/api-tokens/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('revokeApiToken'),
    }),
  }),
});

export const { useApiTokensQuery, useCreateApiTokenMutation, useRevokeApiTokenMutation } = apiTokensApi;
