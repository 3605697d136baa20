import BlockIcon from '@mui/icons-material/Block';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import type { SuccessTokenView } from './successApi';
import { useSuccessToken } from './useSuccessToken';

function StatePanel({
  icon,
  title,
  children,
  tone,
}: {
  icon: ReactNode;
  title: string;
  children: ReactNode;
  tone: 'error' | 'info';
}) {
  return (
    <Paper
      variant="outlined"
      role={tone === 'error' ? 'alert' : 'status'}
      sx={{ p: 5, textAlign: 'center', maxWidth: 560, mx: 'auto' }}
    >
      <Box sx={{ color: `${tone}.main`, mb: 1 }}>{icon}</Box>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/**
 * The four states of a success page (docs/product.md §2.3), exactly one at a time: verifying, access denied, no data, and
 * the result (`children(data)`). Nothing of the result is shown before the server has answered for the token
 * (docs/product.md §2.3): a forged or expired token never reads "success" first. The build
 * prerenders the verifying state (frontend/build/page-files.mts).
 */
export function SuccessTokenGate({ children }: { children: (data: SuccessTokenView) => ReactNode }) {
  const state = useSuccessToken();
  switch (state.status) {
    case 'loading':
      return <VerifyingScreen />;
    case 'error':
      return (
        <StatePanel tone="error" title="Access Denied" icon={<BlockIcon sx={{ fontSize: 48 }} aria-hidden />}>
          <Typography>{state.message}</Typography>
          <Typography sx={{ color: 'text.secondary', mt: 2 }}>Redirecting to home page...</Typography>
        </StatePanel>
      );
    case 'empty':
      return (
        <StatePanel tone="info" title="No Data Available" icon={<InfoOutlinedIcon sx={{ fontSize: 48 }} aria-hidden />}>
          <Typography>We could not find the details of this redemption.</Typography>
          <Typography sx={{ color: 'text.secondary', mt: 2 }}>Redirecting to home page...</Typography>
        </StatePanel>
      );
    case 'ready':
      return <>{children(state.data)}</>;
  }
}

/**
 * "Verifying access..." with its spinner (docs/product.md §2.3), alone between the site's header and footer. It is a screen
 * high, so the footer starts below the fold: the answer replaces it without moving anything on screen
 * (no layout shift, `test/browser/success-pages.browser-spec.ts`).
 */
export function VerifyingScreen() {
  return (
    <Box
      role="status"
      sx={{
        minHeight: '100vh',
        display: 'flex',
        flexDirection: 'column',
        alignItems: 'center',
        gap: 2,
        pt: { xs: 8, sm: 12 },
      }}
    >
      <CircularProgress size={40} aria-hidden />
      <Typography>Verifying access...</Typography>
    </Box>
  );
}
