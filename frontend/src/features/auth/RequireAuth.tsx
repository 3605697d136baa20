import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import Typography from '@mui/material/Typography';
import { Navigate, Outlet, useLocation } from 'react-router-dom';
import { useAccessToken } from './useAccessToken';
import { useAuthControllerMeQuery } from '../../api';

export function VerifyingAccess() {
  return (
    <Box
      role="status"
      aria-live="polite"
      sx={{ minHeight: '100vh', display: 'grid', placeItems: 'center', alignContent: 'center', gap: 2 }}
    >
      <CircularProgress aria-hidden />
      <Typography sx={{ color: 'text.secondary' }}>Verifying access...</Typography>
    </Box>
  );
}

/**
 * docs/product.md §3.2: the dashboard is guarded. No stored token, or a me call that returns no user, sends the visitor to
 * /admin/login (remembering where they were going); while the me call runs a verifying-access screen shows.
 */
export function RequireAuth() {
  const token = useAccessToken();
  const location = useLocation();
  const { data: user, isLoading, isFetching, isError } = useAuthControllerMeQuery(undefined, { skip: !token });
  if (!token) return <Navigate to="/admin/login" replace state={{ from: location }} />;
  if (isLoading || (isFetching && !user)) return <VerifyingAccess />;
  if (isError || !user) return <Navigate to="/admin/login" replace state={{ from: location }} />;
  return <Outlet />;
}
