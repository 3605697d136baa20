import Box from '@mui/material/Box';
import Container from '@mui/material/Container';
import Link from '@mui/material/Link';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { Link as RouterLink } from 'react-router-dom';
import { usePublicConfig } from './usePublicConfig';

/** Footer of the public pages: copyright, postal address, optionally the support e-mail, the licence centre, policy links. */
export function SiteFooter({ showSupportEmail = false }: { showSupportEmail?: boolean }) {
  const { companyName, companyAddress, supportEmail } = usePublicConfig();
  const year = new Date().getFullYear();
  return (
    <Box component="footer" sx={{ mt: 6, py: 4, borderTop: 1, borderColor: 'divider', bgcolor: 'background.paper' }}>
      <Container maxWidth="lg">
        <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ justifyContent: 'space-between' }}>
          <Box>
            {/* A prerendered page carries the year of its build; the browser's own may be later. */}
            <Typography variant="body2" sx={{ color: 'text.secondary' }} suppressHydrationWarning>
              © {year} {companyName}. All rights reserved.
            </Typography>
            {companyAddress && (
              <Typography variant="body2" component="address" sx={{ color: 'text.secondary', fontStyle: 'normal' }}>
                {companyAddress}
              </Typography>
            )}
            {showSupportEmail && supportEmail && (
              <Typography variant="body2" sx={{ color: 'text.secondary' }}>
                Support: <Link href={`mailto:${supportEmail}`}>{supportEmail}</Link>
              </Typography>
            )}
          </Box>
          <Stack component="nav" aria-label="Legal" direction="row" spacing={3} useFlexGap sx={{ flexWrap: 'wrap' }}>
            <Link component={RouterLink} to="/my-licences" variant="body2">
              My licences
            </Link>
            <Link component={RouterLink} to="/privacy-policy" variant="body2">
              Privacy Policy
            </Link>
            <Link component={RouterLink} to="/terms-conditions" variant="body2">
              Terms & Conditions
            </Link>
          </Stack>
        </Stack>
      </Container>
    </Box>
  );
}
