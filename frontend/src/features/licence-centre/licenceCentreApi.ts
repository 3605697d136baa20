import type * as Api from '../../api';
import { setCustomerTokenGetter } from '../../app/authorizedFetch';

/** One licence as `GET /api/customer/licences` answers it (docs/api.md). */
export type CustomerLicence = Api.CustomerLicenceResponse;

export type CustomerSession = Api.CustomerSessionResponse;

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

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

/**
 * The licence centre (docs/product.md §21): its routes take the stored session's customer token (`api/index.ts`
 * sends it in each call's own header). The admin console's token getter is never registered on this page, and a staff
 * token would be refused anyway.
 */
setCustomerTokenGetter(() => storedSession()?.customerToken);
