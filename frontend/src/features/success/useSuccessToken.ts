import { useEffect, useState } from 'react';
import { useNavigate, useSearchParams } from 'react-router-dom';
import { useHydrated } from '../../app/useHydrated';
import { bodyMessage, httpStatus } from '../../utils/httpError';
import { type SuccessTokenView } from './successApi';
import { useRedemptionControllerSuccessTokenQuery } from '../../api';

/** docs/product.md §10.4: after a failed check the page goes home after 3000 ms. */
export const ERROR_REDIRECT_MS = 3000;
export const TOKEN_MISSING = 'Access token missing';
export const VERIFY_FAILED = 'Failed to verify token';
export const ACCESS_DENIED = 'Access denied';
/** While the page shows "Processing", the token is checked again this often: a key added to the pool shows up. */
export const MANUAL_RECHECK_MS = 30_000;

export type SuccessTokenState =
  | { status: 'loading' }
  | { status: 'error'; message: string }
  | { status: 'empty' }
  | { status: 'ready'; data: SuccessTokenView };

/**
 * docs/product.md §5.7 success pages: the `token` query parameter is checked with the server. No token: home at once.
 * A failed check (server message, else "Failed to verify token"; no answer at all: "Access denied") or an
 * empty answer: home after 3000 ms. While the redemption waits for a key (manual processing) the check is repeated
 * every MANUAL_RECHECK_MS, so the page turns into the key view once a key was assigned. The page is prerendered in
 * its loading state (frontend/build/page-files.mts), so it stays `loading` until the browser has hydrated that
 * markup, whatever the cache already holds.
 */
export function useSuccessToken(): SuccessTokenState {
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const token = params.get('token')?.trim() ?? '';
  const hydrated = useHydrated();
  const [waiting, setWaiting] = useState(false);
  const { data, error, isLoading, isFetching, isError } = useRedemptionControllerSuccessTokenQuery(token, {
    skip: !token,
    pollingInterval: waiting ? MANUAL_RECHECK_MS : 0,
  });
  const manual = data?.isManualProcessing === true;
  useEffect(() => setWaiting(manual), [manual]);

  let state: SuccessTokenState;
  if (!hydrated) state = { status: 'loading' };
  else if (!token) state = { status: 'error', message: TOKEN_MISSING };
  else if (isLoading || (isFetching && !data)) state = { status: 'loading' };
  else if (isError) {
    state = {
      status: 'error',
      message: httpStatus(error) !== undefined ? (bodyMessage(error) ?? VERIFY_FAILED) : ACCESS_DENIED,
    };
  } else if (!data) state = { status: 'empty' };
  else state = { status: 'ready', data };

  useEffect(() => {
    if (!token) void navigate('/', { replace: true });
  }, [token, navigate]);

  const leaving = !!token && (state.status === 'error' || state.status === 'empty');
  useEffect(() => {
    if (!leaving) return;
    const timer = setTimeout(() => void navigate('/', { replace: true }), ERROR_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [leaving, navigate]);

  return state;
}
