import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Link from '@mui/material/Link';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PublicLayout } from '../site/PublicLayout';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { usePublicConfig } from '../site/usePublicConfig';
import { RedeemForm } from './RedeemForm';
import { SupportPanel } from './SupportPanel';
import { VoucherHelp } from './VoucherHelp';

export const PAGE_TITLE = 'Redeem Your Office License';

/** `/`: the customer redeems a voucher code (docs/product.md §2.2 Redeem page). */
export function RedeemPage() {
  const { supportEmail, companyName } = usePublicConfig();
  useDocumentTitle(
    PAGE_TITLE,
    'Redeem your office-suite 2024 voucher code and receive your licence key and download link at once.',
  );
  return (
    <PublicLayout>
      <Box sx={{ mb: 3 }}>
        <Typography variant="h1">
          {PAGE_TITLE}
          {companyName && (
            <Box component="span" sx={{ color: 'text.secondary', fontWeight: 400 }}>
              {' '}
              | {companyName}
            </Box>
          )}
        </Typography>
        <Typography sx={{ color: 'text.secondary', mt: 1 }}>
          Enter your details and the voucher code of your office-suite 2024 deal to receive your licence.
        </Typography>
      </Box>
      <Alert severity="info" sx={{ mb: 3 }}>
        Your order details will be sent to your e-mail within 2-3 hours. If nothing arrives by then, please contact our
        support team{supportEmail ? ' at ' : ''}
        {supportEmail && <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>}.
      </Alert>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '3fr 2fr' }, alignItems: 'start' }}>
        <Paper variant="outlined" sx={{ p: { xs: 2, sm: 4 } }}>
          <Typography variant="h2" sx={{ mb: 2 }}>
            Your details
          </Typography>
          <RedeemForm />
        </Paper>
        <Stack spacing={3} component="aside" aria-label="Help">
          <VoucherHelp />
          <SupportPanel />
        </Stack>
      </Box>
    </PublicLayout>
  );
}

export default RedeemPage;
