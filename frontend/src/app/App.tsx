import { StrictMode, type ReactNode } from 'react';
import { Provider } from 'react-redux';
import { AppTheme } from '../theme/AppTheme';
import type { AppStore } from './store';

/**
 * What every screen runs inside: the store and the theme. The router is the caller's: `<AppRouter/>` in the
 * browser (main.tsx), a static router when the build prerenders a page (prerender.tsx).
 */
export function App({ store, children }: { store: AppStore; children: ReactNode }) {
  return (
    <StrictMode>
      <Provider store={store}>
        <AppTheme>{children}</AppTheme>
      </Provider>
    </StrictMode>
  );
}
