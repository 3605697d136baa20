/**
 * The signed-in session as the data layer sees it. features/auth registers how to read the bearer token
 * (`setAccessTokenGetter`) and how to renew it (`setSessionRenewal`) when the admin console loads, so the
 * public pages carry no auth code and nothing outside features/auth reads token storage. The RTK Query base
 * query (`api.ts`) and `authorizedFetch` (downloads) both send through `withSessionRenewal`.
 */
let accessTokenGetter: (() => string | null | undefined) | undefined;
export function setAccessTokenGetter(getter: typeof accessTokenGetter): void {
  accessTokenGetter = getter;
}

/** The current bearer token, if signed in. */
export function currentAccessToken(): string | null {
  return accessTokenGetter?.() ?? null;
}

/**
 * The licence centre's customer token, which its routes take instead (security `customer` in the OpenAPI document;
 * `api/index.ts` sends it): features/licence-centre registers how to read it. A staff token is never sent there.
 */
let customerTokenGetter: (() => string | null | undefined) | undefined;
export function setCustomerTokenGetter(getter: typeof customerTokenGetter): void {
  customerTokenGetter = getter;
}

export function currentCustomerToken(): string | null {
  return customerTokenGetter?.() ?? null;
}

/**
 * How to renew the session (`POST /api/admin/refresh`) and what to do when that fails: a 401 answer is then
 * retried once with the renewed token.
 */
export interface SessionRenewal {
  refresh: () => Promise<boolean>;
  onSessionLost: () => void;
}
let sessionRenewal: SessionRenewal | undefined;
export function setSessionRenewal(renewal: SessionRenewal | undefined): void {
  sessionRenewal = renewal;
}

/**
 * Sends; an answer that `isUnauthorized` while signed in renews the session once and sends again. A failed
 * renewal or a second 401 ends the session. Without a registered renewal the first answer is returned.
 */
export async function withSessionRenewal<T>(
  send: () => T | PromiseLike<T>,
  isUnauthorized: (answer: T) => boolean,
): Promise<T> {
  let answer = await send();
  if (!isUnauthorized(answer) || !sessionRenewal || !currentAccessToken()) return answer;
  const renewal = sessionRenewal;
  if (await renewal.refresh()) {
    answer = await send();
    if (!isUnauthorized(answer)) return answer;
  }
  renewal.onSessionLost();
  return answer;
}

/** `fetch` with credentials and the bearer token, renewed once on a 401 like every API call. */
export function authorizedFetch(url: string, init?: RequestInit): Promise<Response> {
  return withSessionRenewal(
    () => {
      const headers = new Headers(init?.headers);
      const token = currentAccessToken();
      if (token && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${token}`);
      return fetch(url, { credentials: 'include', ...init, headers });
    },
    (res) => res.status === 401,
  );
}
