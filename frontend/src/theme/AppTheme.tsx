import CssBaseline from '@mui/material/CssBaseline';
import { createTheme, ThemeProvider } from '@mui/material/styles';
import type { ReactNode } from 'react';
import { components } from './customizations';
import { palette, shape, typography } from './primitives';

export const theme = createTheme({ palette, typography, shape, components });

/** The one theme of the app (public pages and admin console). */
export function AppTheme({ children }: { children: ReactNode }) {
  return (
    <ThemeProvider theme={theme}>
      <CssBaseline />
      {children}
    </ThemeProvider>
  );
}
