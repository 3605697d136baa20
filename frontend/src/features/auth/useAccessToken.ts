import { useSyncExternalStore } from 'react';
import { getAccessToken, subscribeTokens } from './tokenStorage';

/** The stored admin access token, re-rendering when it is stored or cleared. */
export function useAccessToken(): string | null {
  return useSyncExternalStore(subscribeTokens, getAccessToken, getAccessToken);
}
