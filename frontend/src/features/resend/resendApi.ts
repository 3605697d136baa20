import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type ResendOrderEmailRequest = Api.ResendOrderEmailDto;

/** `POST /api/resend-order-email`: always 202 with one message, whatever was sent (docs/product.md §19.2). */
export const resendApi = api.injectEndpoints({
  endpoints: (build) => ({
    resendOrderEmail: build.mutation<{ message: string }, ResendOrderEmailRequest>({
      query: (body) => ({ url: 'resend-order-email', method: 'POST', body }),
      invalidatesTags: invalidatesFor('resendOrderEmail'),
    }),
  }),
});

export const { useResendOrderEmailMutation } = resendApi;
