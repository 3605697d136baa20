import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { Link as RouterLink, useLocation } from 'react-router-dom';
import { PublicLayout } from '../site/PublicLayout';
import { useDocumentTitle } from '../site/useDocumentTitle';

/** Every path the route table does not know (docs/product.md §2.7 404 page). */
export function NotFoundPage() {
  const { pathname } = useLocation();
  useDocumentTitle(
    '404 Page Not Found',
    'This page does not exist. Redeem your office-suite voucher code on the home page.',
  );
  return (
    <PublicLayout maxWidth="sm">
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <Typography variant="h1">404 Page Not Found</Typography>
        <Box
          component="pre"
          sx={{
            mt: 3,
            p: 2,
            bgcolor: 'grey.100',
            borderRadius: 1,
            textAlign: 'left',
            whiteSpace: 'pre-wrap',
            wordBreak: 'break-all',
            fontSize: 13,
          }}
        >
          {`No route matches "${pathname}".\nCheck the address for typos, or add the route to the route table (frontend/src/app/router.tsx).`}
        </Box>
        <Button component={RouterLink} to="/" variant="contained" sx={{ mt: 3 }}>
          Return to Home
        </Button>
      </Paper>
    </PublicLayout>
  );
}

export default NotFoundPage;
