import { render, type RenderOptions } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import type { ReactElement, ReactNode } from 'react';
import { Provider } from 'react-redux';
import { createMemoryRouter, RouterProvider, type RouteObject } from 'react-router-dom';
import { makeStore, type AppStore, type RootState } from '../app/store';
import { AppTheme } from '../theme/AppTheme';

interface ExtendedRenderOptions extends Omit<RenderOptions, 'queries' | 'wrapper'> {
  preloadedState?: Partial<RootState>;
  store?: AppStore;
}

/** Renders a component with the real store and theme (STYLE.md: `renderWithProviders`). */
export function renderWithProviders(ui: ReactElement, { preloadedState, store = makeStore(preloadedState), ...options }: ExtendedRenderOptions = {}) {
  const Wrapper = ({ children }: { children: ReactNode }) => (
    <Provider store={store}>
      <AppTheme>{children}</AppTheme>
    </Provider>
  );
  return { store, user: userEvent.setup(), ...render(ui, { wrapper: Wrapper, ...options }) };
}

/** Renders routes in a memory router at `path` with the real store and theme; returns the router to inspect navigation. */
export function renderRoutes(routes: RouteObject[], path: string, options: ExtendedRenderOptions = {}) {
  const router = createMemoryRouter(routes, { initialEntries: [path] });
  const result = renderWithProviders(<RouterProvider router={router} />, options);
  return { ...result, router };
}
