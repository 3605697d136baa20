import { render, type RenderOptions } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement, ReactNode } from 'react';
import { Provider } from 'react-redux';
import { MemoryRouter, useLocation, useRoutes, type Location, type RouteObject } from 'react-router-dom';
import { publicPages } from '../app/router';
import { makeStore, type AppStore, type RootState } from '../app/store';
import { AppTheme } from '../theme/AppTheme';

interface ExtendedRenderOptions extends Omit<RenderOptions, 'queries' | 'wrapper'> {
  preloadedState?: Partial<RootState>;
  store?: AppStore;
}

/** Renders a component with the real store and theme (STYLE.md: `renderWithProviders`). */
export function renderWithProviders(
  ui: ReactElement,
  { preloadedState, store = makeStore(preloadedState), ...options }: ExtendedRenderOptions = {},
) {
  const Wrapper = ({ children }: { children: ReactNode }) => (
    <Provider store={store}>
      <AppTheme>{children}</AppTheme>
    </Provider>
  );
  return { store, user: userEvent.setup({ delay: null }), ...render(ui, { wrapper: Wrapper, ...options }) };
}

/** Where the router is now: `location.current.pathname`, `.search`. */
export interface LocationProbe {
  current: Location;
}

function Routes({ routes, probe }: { routes: RouteObject[]; probe: LocationProbe }) {
  probe.current = useLocation();
  return useRoutes(routes);
}

/** Renders routes in a memory router at `path` with the real store and theme; `location` follows navigation. */
export function renderRoutes(routes: RouteObject[], path: string, options: ExtendedRenderOptions = {}) {
  const location = {} as LocationProbe;
  const result = renderWithProviders(
    <MemoryRouter initialEntries={[path]}>
      <Routes routes={routes} probe={location} />
    </MemoryRouter>,
    options,
  );
  return { ...result, location };
}

/**
 * The public pages the router loads on demand, imported once. A page's first import compiles its module, which on a
 * loaded machine can take longer than a `findBy` waits (seen: the redeem page still "Loading page" after 5 s); a test
 * file that renders the routes runs this in `beforeAll`, so its tests wait for the page, not for the compiler.
 */
export function loadPublicPages(): Promise<unknown> {
  return Promise.all(Object.values(publicPages).map((load) => load()));
}
