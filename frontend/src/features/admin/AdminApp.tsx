import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';

/**
 * Entry of the admin console, loaded lazily by the router for every `/admin/*` path so the public pages never
 * download admin code. Placeholder until the admin console is built: it owns its routes below `/admin`
 * (`<Routes>` with `login`, `voucher-codes/:productId`, and the guarded dashboard).
 */
export function AdminApp() {
  return (
    <Box component="main" sx={{ p: 4 }}>
      <Typography variant="h1">Admin</Typography>
    </Box>
  );
}

export default AdminApp;
