import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type LoginRequest = Api.LoginDto;
export type LoginResponse = Api.LoginResponse;
export type AdminUser = Api.MeResponse;
export type ChangePasswordRequest = Api.ChangePasswordDto;

/** docs/product.md §8.3 "Admin authentication" calls. */
export const authApi = api.injectEndpoints({
  endpoints: (build) => ({
    login: build.mutation<LoginResponse, LoginRequest>({
      query: (body) => ({ url: 'admin/login', method: 'POST', body }),
      invalidatesTags: invalidatesFor('login'),
    }),
    /** The signed-in user; cached 5 minutes, no retry (docs/product.md §8.3). */
    me: build.query<AdminUser, void>({
      query: () => 'admin/me',
      keepUnusedDataFor: 300,
      providesTags: ['Me'],
    }),
    logout: build.mutation<unknown, void>({
      query: () => ({ url: 'admin/logout', method: 'POST' }),
      invalidatesTags: invalidatesFor('logout'),
    }),
    changePassword: build.mutation<{ message: string }, ChangePasswordRequest>({
      query: (body) => ({ url: 'admin/change-password', method: 'POST', body }),
      invalidatesTags: invalidatesFor('changePassword'),
    }),
    resetOperator: build.mutation<{ username: string; newPassword: string }, void>({
      query: () => ({ url: 'admin/reset-operator', method: 'POST' }),
      invalidatesTags: invalidatesFor('resetOperator'),
    }),
  }),
});

export const { useLoginMutation, useMeQuery, useLogoutMutation, useChangePasswordMutation, useResetOperatorMutation } =
  authApi;
