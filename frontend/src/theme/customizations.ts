import type { Components, Theme } from '@mui/material/styles';

/** The few component defaults the app changes. */
export const components: Components<Theme> = {
  MuiButton: { defaultProps: { disableElevation: true } },
  MuiTextField: { defaultProps: { fullWidth: true } },
  MuiPaper: { defaultProps: { elevation: 0 }, styleOverrides: { outlined: { borderColor: '#dde3ee' } } },
  // Underlined everywhere: a link inside text must not be told apart by colour alone (WCAG 1.4.1).
  MuiLink: { defaultProps: { underline: 'always' } },
  // Subtitles are text, not headings (MUI maps them to <h6>, which breaks the heading order after an <h1>/<h2>).
  MuiTypography: { defaultProps: { variantMapping: { subtitle1: 'p', subtitle2: 'p' } } },
};
