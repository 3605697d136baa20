import createCache from '@emotion/cache';
import { CacheProvider } from '@emotion/react';
import createEmotionServer from '@emotion/server/create-instance';
import { prerender } from 'react-dom/static';
import { StaticRouter } from 'react-router-dom';
import { App } from './app/App';
import { AppRoutes } from './app/router';
import { makeStore } from './app/store';
import { seedPublicConfig } from './features/site/embeddedPublicConfig';
import type { PublicConfig } from './features/site/siteApi';

/**
 * Run by the build (frontend/build/pages.ts), in Node: a page's markup as the browser's first render draws
 * it, and the CSS of that markup (Emotion's, as `<style data-emotion>` tags the browser's Emotion cache adopts
 * when main.tsx hydrates). `config` is what the page shows for the public config; the build passes
 * placeholders that the API replaces with its real values when it serves the page.
 */
export async function renderPage(path: string, config: PublicConfig): Promise<{ html: string; styles: string }> {
  const cache = createCache({ key: 'css' });
  const emotion = createEmotionServer(cache);
  const store = makeStore();
  seedPublicConfig(store, config);
  // prerender (not renderToString) waits for the lazy route chunks and renders them in.
  const { prelude } = await prerender(
    <CacheProvider value={cache}>
      <App store={store}>
        <StaticRouter location={path}>
          <AppRoutes />
        </StaticRouter>
      </App>
    </CacheProvider>,
  );
  const html = await new Response(prelude).text();
  return { html, styles: emotion.constructStyleTagsFromChunks(emotion.extractCriticalToChunks(html)) };
}
