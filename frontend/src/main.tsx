import { startTransition } from 'react';
import { createRoot, hydrateRoot } from 'react-dom/client';
import { App } from './app/App';
import { AppRouter } from './app/router';
import { makeStore } from './app/store';
import { embeddedPublicConfig, seedPublicConfig } from './features/site/embeddedPublicConfig';
import { prefetchSuccessToken } from './features/success/prefetchSuccessToken';

const store = makeStore();
const config = embeddedPublicConfig();
if (config) seedPublicConfig(store, config);
prefetchSuccessToken(store, window.location);

const container = document.getElementById('root')!;
const app = (
  <App store={store}>
    <AppRouter />
  </App>
);
// A prerendered page (frontend/build/page-files.mts) is hydrated, any other one rendered. Both in a transition, so React
// works in slices of a few milliseconds and the page stays responsive while the first render runs.
startTransition(() => {
  if (container.firstElementChild) hydrateRoot(container, app);
  else createRoot(container).render(app);
});
