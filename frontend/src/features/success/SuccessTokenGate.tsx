import BlockIcon from '@mui/icons-material/Block';
import InfoOutlinedIcon from '@mui/icons-material/InfoOutlined';
import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import type { SuccessTokenView } from './successApi';
import { useSuccessToken } from './useSuccessToken';

function StatePanel({ icon, title, children, tone }: { icon: ReactNode; title: string; children: ReactNode; tone: 'error' | 'info' }) {
  return (
    <Paper variant="outlined" role={tone === 'error' ? 'alert' : 'status'} sx={{ p: 5, textAlign: 'center', maxWidth: 560, mx: 'auto' }}>
      <Box sx={{ color: `${tone}.main`, mb: 1 }}>{icon}</Box>
      <Typography variant="h1" sx={{ mb: 1 }}>
        {title}
      </Typography>
      {children}
    </Paper>
  );
}

/**
 * The four states of a success page (SPEC §2): verifying, access denied, no data, and the result. The result
 * and the verifying state are the same page: `children(undefined)` draws its frame (what every valid token
 * shows, with "Verifying access..." where the answer goes), `children(data)` fills it in. The build
 * prerenders the frame (frontend/build/page-files.mts), so it is on screen before the app has loaded, and
 * the answer changes only what depends on it: nothing moves (layout shift) and nothing larger appears late.
 */
export function SuccessTokenGate({ children }: { children: (data: SuccessTokenView | undefined) => ReactNode }) {
  const state = useSuccessToken();
  switch (state.status) {
    case 'loading':
      return <>{children(undefined)}</>;
    case 'error':
      return (
        <StatePanel tone="error" title="Access Denied" icon={<BlockIcon sx={{ fontSize: 48 }} aria-hidden />}>
          <Typography>{state.message}</Typography>
          <Typography sx={{ color: 'text.secondary', mt: 2 }}>
            Redirecting to home page...
          </Typography>
        </StatePanel>
      );
    case 'empty':
      return (
        <StatePanel tone="info" title="No Data Available" icon={<InfoOutlinedIcon sx={{ fontSize: 48 }} aria-hidden />}>
          <Typography>We could not find the details of this redemption.</Typography>
          <Typography sx={{ color: 'text.secondary', mt: 2 }}>
            Redirecting to home page...
          </Typography>
        </StatePanel>
      );
    case 'ready':
      return <>{children(state.data)}</>;
  }
}

/** "Verifying access..." with its spinner (SPEC §2), where a success page shows what the token's answer says. */
export function VerifyingAccess({ size = 40 }: { size?: number }) {
  return (
    <Box component="span" role="status" sx={{ display: 'inline-flex', alignItems: 'center', justifyContent: 'center', gap: 1.5 }}>
      <CircularProgress size={size} aria-hidden />
      <span>Verifying access...</span>
    </Box>
  );
}
