import { setAccessTokenGetter, setSessionRenewal } from '../../app/authorizedFetch';
import { clearTokens, getAccessToken, getRefreshToken, storeTokens } from './tokenStorage';

let inFlight: Promise<boolean> | undefined;

/**
 * Renews the access token with the stored refresh token (`POST /api/admin/refresh`, which rotates it).
 * Concurrent callers share one request: a refresh token is single-use, a second parallel refresh with the
 * same token would end the session. Resolves false (and forgets the tokens) when the session is over.
 */
export function refreshAccessToken(): Promise<boolean> {
  inFlight ??= (async () => {
    const refreshToken = getRefreshToken();
    if (!refreshToken) return false;
    try {
      const res = await fetch('/api/admin/refresh', {
        method: 'POST',
        credentials: 'include',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ refreshToken }),
      });
      if (!res.ok) {
        clearTokens();
        return false;
      }
      const body = (await res.json()) as { accessToken?: string; refreshToken?: string };
      if (!body.accessToken) return false;
      storeTokens(body.accessToken, body.refreshToken);
      return true;
    } catch {
      return false;
    }
  })().finally(() => {
    inFlight = undefined;
  });
  return inFlight;
}

/** Makes every API call carry the admin bearer token and renew it once on a 401. Idempotent. */
export function installAdminSession(): void {
  setAccessTokenGetter(getAccessToken);
  setSessionRenewal({ refresh: refreshAccessToken, onSessionLost: clearTokens });
}

/** The console's side of the single sign-on exchange: its own session, or why not (the server's sentence). */
export type SsoExchange = { ok: true } | { ok: false; message?: string };

/**
 * Single sign-on hands the console a one-time code in the URL fragment (`#sso-code=…`, never sent to a server or
 * written to a log). It is posted to `POST /api/admin/oidc/exchange`, and the browser's hand-off cookie (httpOnly,
 * SameSite=Strict, sent only there) goes along: only the pair opens the session, once, within 60 s. A session the
 * console held before (an account switch the person confirmed) is ended at the server, not just forgotten.
 */
export async function exchangeSsoCode(code: string): Promise<SsoExchange> {
  try {
    const res = await fetch('/api/admin/oidc/exchange', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ code }),
    });
    const body = (await res.json().catch(() => ({}))) as {
      accessToken?: string;
      refreshToken?: string;
      message?: unknown;
    };
    if (!res.ok || !body.accessToken) {
      return { ok: false, message: typeof body.message === 'string' ? body.message : undefined };
    }
    const previous = getAccessToken();
    storeTokens(body.accessToken, body.refreshToken);
    if (previous) endSession(previous);
    return { ok: true };
  } catch {
    return { ok: false };
  }
}

/** Ends the session of this access token at the server; best effort (an expired token's session runs out alone). */
function endSession(accessToken: string): void {
  void fetch('/api/admin/logout', { method: 'POST', headers: { Authorization: `Bearer ${accessToken}` } }).catch(
    () => undefined,
  );
}
