import type { Components, Theme } from '@mui/material/styles';

/** The few component defaults the app changes. */
export const components: Components<Theme> = {
  MuiButton: { defaultProps: { disableElevation: true } },
  MuiTextField: { defaultProps: { fullWidth: true } },
  MuiPaper: { defaultProps: { elevation: 0 }, styleOverrides: { outlined: { borderColor: '#dde3ee' } } },
  MuiLink: { defaultProps: { underline: 'hover' } },
};
