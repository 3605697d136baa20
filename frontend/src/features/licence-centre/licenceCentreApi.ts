import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

/** One licence as `GET /api/customer/licences` answers it (docs/api.md). */
export type CustomerLicence = Api.CustomerLicenceResponse;

export type CustomerSession = Api.CustomerSessionResponse;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

/**
 * The licence centre (docs/product.md §21). The customer token travels in each call's own header:
 * the admin console's token getter is never registered on this page, and a staff token would be refused anyway.
 */
export const licenceCentreApi = api.injectEndpoints({
  endpoints: (build) => ({
    requestCustomerLink: build.mutation<{ message: string }, { email: string }>({
      query: (body) => ({ url: 'customer/access', method: 'POST', body }),
      invalidatesTags: invalidatesFor('requestCustomerLink'),
    }),
    openCustomerSession: build.mutation<CustomerSession, { token: string }>({
      query: (body) => ({ url: 'customer/session', method: 'POST', body }),
      invalidatesTags: invalidatesFor('openCustomerSession'),
    }),
    customerLicences: build.query<CustomerLicence[], string>({
      query: (token) => ({ url: 'customer/licences', headers: bearer(token) }),
      keepUnusedDataFor: 0,
    }),
    resendCustomerLicence: build.mutation<{ message: string }, { token: string; redemptionId: string }>({
      query: ({ token, redemptionId }) => ({
        url: `customer/licences/${encodeURIComponent(redemptionId)}/resend`,
        method: 'POST',
        headers: bearer(token),
      }),
      invalidatesTags: invalidatesFor('resendCustomerLicence'),
    }),
    eraseCustomerData: build.mutation<{ message: string }, { token: string }>({
      query: ({ token }) => ({
        url: 'customer/erasure',
        method: 'POST',
        headers: bearer(token),
        body: { confirm: true },
      }),
      invalidatesTags: invalidatesFor('eraseCustomerData'),
    }),
  }),
});

export const {
  useRequestCustomerLinkMutation,
  useOpenCustomerSessionMutation,
  useCustomerLicencesQuery,
  useResendCustomerLicenceMutation,
  useEraseCustomerDataMutation,
} = licenceCentreApi;

/** `GET /api/customer/data`: the JSON attachment, saved under the server's file name. */
export async function downloadCustomerData(token: string): Promise<boolean> {
  const res = await fetch('/api/customer/data', { headers: bearer(token), credentials: 'include' });
  if (!res.ok) return false;
  const name = /filename="([^"]+)"/.exec(res.headers.get('Content-Disposition') ?? '')?.[1] ?? 'my-data.json';
  const url = URL.createObjectURL(await res.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return true;
}

const STORAGE_KEY = 'licence-centre-session';

/** The session lives in this tab only (sessionStorage), until it expires or the customer signs out. */
export function storedSession(): CustomerSession | null {
  try {
    const session = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? 'null') as CustomerSession | null;
    return session && new Date(session.expiresAt).getTime() > Date.now() ? session : null;
  } catch {
    return null;
  }
}

export function storeSession(session: CustomerSession | null): void {
  if (session) sessionStorage.setItem(STORAGE_KEY, JSON.stringify(session));
  else sessionStorage.removeItem(STORAGE_KEY);
}
