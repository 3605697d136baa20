import type { AppStore } from '../../app/store';
import { client } from '../../api';

/**
 * Opening a success page: its one API request (what the page's heading waits for) starts as soon as the app
 * does, while the page's own chunks are still loading, instead of once the page has rendered.
 * `useSuccessToken` then finds it in flight or answered (same endpoint, same token).
 */
export function prefetchSuccessToken(store: AppStore, location: Pick<Location, 'pathname' | 'search'>): void {
  if (!/^\/success\/(windows|mac)\/?$/i.test(location.pathname)) return;
  const token = new URLSearchParams(location.search).get('token')?.trim();
  if (token) store.dispatch(client.util.prefetch('redemptionControllerSuccessToken', token, {}));
}
