import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type TwoFactorSetup = Api.TwoFactorSetupResponse;

/** `GET /api/admin/sessions`: the signed-in user's live sessions. */
export type OwnSession = Api.OwnSessionResponse;

/** The Security screen's calls: two-factor enrolment, recovery codes, own sessions. */
export const securityApi = api.injectEndpoints({
  endpoints: (build) => ({
    setupTwoFactor: build.mutation<TwoFactorSetup, { currentPassword: string }>({
      query: (body) => ({ url: 'admin/2fa/setup', method: 'POST', body }),
      invalidatesTags: invalidatesFor('setupTwoFactor'),
    }),
    enableTwoFactor: build.mutation<{ twoFactorEnabled: true; recoveryCodes: string[] }, { code: string }>({
      query: (body) => ({ url: 'admin/2fa/enable', method: 'POST', body }),
      invalidatesTags: invalidatesFor('enableTwoFactor'),
    }),
    disableTwoFactor: build.mutation<{ twoFactorEnabled: false }, { code: string }>({
      query: (body) => ({ url: 'admin/2fa/disable', method: 'POST', body }),
      invalidatesTags: invalidatesFor('disableTwoFactor'),
    }),
    regenerateRecoveryCodes: build.mutation<{ recoveryCodes: string[] }, { code: string }>({
      query: (body) => ({ url: 'admin/2fa/recovery-codes', method: 'POST', body }),
      invalidatesTags: invalidatesFor('regenerateRecoveryCodes'),
    }),
    sessions: build.query<OwnSession[], void>({
      query: () => 'admin/sessions',
      providesTags: ['Sessions'],
    }),
    endSession: build.mutation<{ success: true }, string>({
      query: (id) => ({ url: `admin/sessions/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('endSession'),
    }),
    endOtherSessions: build.mutation<{ revoked: number }, void>({
      query: () => ({ url: 'admin/sessions/revoke-others', method: 'POST' }),
      invalidatesTags: invalidatesFor('endOtherSessions'),
    }),
  }),
});

export const {
  useSetupTwoFactorMutation,
  useEnableTwoFactorMutation,
  useDisableTwoFactorMutation,
  useRegenerateRecoveryCodesMutation,
  useSessionsQuery,
  useEndSessionMutation,
  useEndOtherSessionsMutation,
} = securityApi;
