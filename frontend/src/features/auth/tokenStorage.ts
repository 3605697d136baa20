/**
 * docs/product.md §7.5: the admin bearer token lives in browser storage under `adminToken` (mirrored in `authToken`), the
 * refresh token under `adminRefreshToken`. Components follow changes with `useSyncExternalStore(subscribeTokens, ...)`.
 */
export const ACCESS_TOKEN_KEYS = ['adminToken', 'authToken'] as const;
export const REFRESH_TOKEN_KEY = 'adminRefreshToken';

type Listener = () => void;
const listeners = new Set<Listener>();

function storage(): Storage | undefined {
  try {
    return typeof window === 'undefined' ? undefined : window.localStorage;
  } catch {
    return undefined;
  }
}

export function getAccessToken(): string | null {
  const store = storage();
  return store?.getItem('adminToken') ?? store?.getItem('authToken') ?? null;
}

export function getRefreshToken(): string | null {
  return storage()?.getItem(REFRESH_TOKEN_KEY) ?? null;
}

export function storeTokens(accessToken: string, refreshToken?: string): void {
  const store = storage();
  for (const key of ACCESS_TOKEN_KEYS) store?.setItem(key, accessToken);
  if (refreshToken) store?.setItem(REFRESH_TOKEN_KEY, refreshToken);
  notify();
}

export function clearTokens(): void {
  const store = storage();
  for (const key of [...ACCESS_TOKEN_KEYS, REFRESH_TOKEN_KEY]) store?.removeItem(key);
  notify();
}

export function subscribeTokens(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function notify(): void {
  for (const listener of listeners) listener();
}
