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

/**
 * Single sign-on hands the console a fresh session's refresh token in the URL fragment (`#sso=…`, never sent to
 * a server). It is spent at once: the rotation answers the console's own tokens, and the handed-over token is
 * worthless afterwards (presented again, it ends the session). Resolves false when the server refuses it.
 */
export async function completeSsoSignIn(handoff: string): Promise<boolean> {
  try {
    const res = await fetch('/api/admin/refresh', {
      method: 'POST',
      credentials: 'include',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ refreshToken: handoff }),
    });
    if (!res.ok) return false;
    const body = (await res.json()) as { accessToken?: string; refreshToken?: string };
    if (!body.accessToken) return false;
    storeTokens(body.accessToken, body.refreshToken);
    return true;
  } catch {
    return false;
  }
}
