import type { ThemeOptions } from '@mui/material/styles';

/**
 * Colours, type and shape of the app: MUI defaults with a deeper brand blue, and warning/info deep enough for
 * WCAG 2.1 AA text contrast (4.5:1) both as text on white and under white text (checked by axe-core in
 * test/browser/accessibility.browser-spec.ts; MUI's default orange #ed6c02 gives 3.1:1).
 */
export const palette: ThemeOptions['palette'] = {
  mode: 'light',
  primary: { main: '#1565c0' },
  secondary: { main: '#5e35b1' },
  success: { main: '#2e7d32' },
  warning: { main: '#b45309' },
  info: { main: '#0277bd' },
  background: { default: '#f4f6fb', paper: '#ffffff' },
};

export const typography: ThemeOptions['typography'] = {
  fontFamily: '"Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif',
  h1: { fontSize: '2rem', fontWeight: 700, lineHeight: 1.25 },
  h2: { fontSize: '1.5rem', fontWeight: 700, lineHeight: 1.3 },
  h3: { fontSize: '1.25rem', fontWeight: 600, lineHeight: 1.35 },
  h4: { fontSize: '1.1rem', fontWeight: 600 },
  button: { textTransform: 'none', fontWeight: 600 },
};

export const shape: ThemeOptions['shape'] = { borderRadius: 10 };
