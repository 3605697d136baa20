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

/** The four states of a success page (SPEC §2): verifying, access denied, no data, and the result. */
export function SuccessTokenGate({ children }: { children: (data: SuccessTokenView) => ReactNode }) {
  const state = useSuccessToken();
  switch (state.status) {
    case 'loading':
      return (
        <Box role="status" sx={{ display: 'grid', placeItems: 'center', gap: 2, minHeight: '40vh' }}>
          <CircularProgress aria-hidden />
          <Typography>Verifying access...</Typography>
        </Box>
      );
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
