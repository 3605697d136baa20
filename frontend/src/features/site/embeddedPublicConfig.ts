import type { AppStore } from '../../app/store';
import { client } from '../../api';
import type { PublicConfig } from './siteApi';

/**
 * The API writes `GET /api/public-config`'s answer into every page it serves, in
 * `<script id="public-config" type="application/json">` (backend/src/static-assets.ts), so the first render
 * already shows the company name and support address: no request, no text appearing late and moving the page.
 */
export const PUBLIC_CONFIG_ELEMENT_ID = 'public-config';

export function embeddedPublicConfig(doc: Document = document): PublicConfig | undefined {
  const text = doc.getElementById(PUBLIC_CONFIG_ELEMENT_ID)?.textContent?.trim();
  if (!text) return undefined; // the dev server, or a page served without it: usePublicConfig fetches it
  try {
    return JSON.parse(text) as PublicConfig;
  } catch {
    return undefined;
  }
}

/** Puts the config in RTK Query's cache, as if `GET /api/public-config` had answered. */
export function seedPublicConfig(store: AppStore, config: PublicConfig): void {
  store.dispatch(
    client.util.upsertQueryEntries([{ endpointName: 'publicConfigControllerGet', arg: undefined, value: config }]),
  );
}
