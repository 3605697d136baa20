import { useSyncExternalStore } from 'react';

const never = () => () => undefined;

/**
 * False while React renders on the server (the build's prerender) and while it hydrates that markup in the
 * browser, true from then on (and at once when a page is rendered without a prerender). A component whose
 * output depends on the browser (an API answer already in the cache, the address's query) draws the
 * prerendered state until this turns true, so hydration finds exactly the markup the build wrote.
 */
export function useHydrated(): boolean {
  return useSyncExternalStore(
    never,
    () => true,
    () => false,
  );
}
