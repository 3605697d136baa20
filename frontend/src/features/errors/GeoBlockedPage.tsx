import PublicOffIcon from '@mui/icons-material/PublicOff';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { PublicLayout } from '../site/PublicLayout';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { usePublicConfig } from '../site/usePublicConfig';

export const REGION_MESSAGE =
  "We're sorry, but this service is currently not available in your region due to regulatory requirements.";

/** `/geo-blocked` (docs/product.md §2.6 Region page). */
export function GeoBlockedPage() {
  const { supportEmail } = usePublicConfig();
  useDocumentTitle('Access Restricted', 'Voucher redemption is not available in your region.');
  return (
    <PublicLayout maxWidth="sm">
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <PublicOffIcon color="error" sx={{ fontSize: 56 }} aria-hidden />
        <Typography variant="h1" sx={{ my: 1 }}>
          Access Restricted
        </Typography>
        <Typography variant="subtitle1" sx={{ fontWeight: 600 }}>
          Region: Germany
        </Typography>
        <Typography sx={{ mt: 2 }}>{REGION_MESSAGE}</Typography>
        <Typography sx={{ mt: 2 }}>
          Questions? Contact {supportEmail && <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>}
        </Typography>
        <Box
          component="p"
          sx={{
            mt: 3,
            mb: 0,
            color: 'text.secondary',
            fontFamily: 'ui-monospace, Menlo, Consolas, monospace',
            fontSize: 14,
          }}
        >
          Error Code: GEO_BLOCKED
        </Box>
      </Paper>
    </PublicLayout>
  );
}

export default GeoBlockedPage;
