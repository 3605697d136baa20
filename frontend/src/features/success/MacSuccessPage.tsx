import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DownloadIcon from '@mui/icons-material/Download';
import LaptopMacIcon from '@mui/icons-material/LaptopMac';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { PublicLayout } from '../site/PublicLayout';
import { SiteFooter } from '../site/SiteFooter';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { HelpPanel } from './HelpPanel';
import { MAC_PACKAGES, MAC_REQUIREMENTS, type MacPackage } from './macPackages';
import { ReturnHomeButton } from './ReturnHomeButton';
import { SuccessTokenGate } from './SuccessTokenGate';

/**
 * One package: its step number, name, description and chips, and its download (or note). On a narrow screen
 * (docs/product.md §2.5) the download goes under the text, which keeps the card's whole width beside the number:
 * side by side the text had ~90 px at 375 px and the chips were cut.
 */
function PackageCard({ pkg, step }: { pkg: MacPackage; step: number }) {
  const titleId = `mac-package-${step}`;
  return (
    <Paper
      component="li"
      variant="outlined"
      aria-labelledby={titleId}
      sx={{
        p: { xs: 2, sm: 3 },
        display: 'grid',
        columnGap: 2,
        rowGap: 1.5,
        gridTemplateColumns: { xs: '40px minmax(0, 1fr)', sm: '40px minmax(0, 1fr) auto' },
      }}
    >
      <Box
        aria-hidden
        sx={{
          width: 40,
          height: 40,
          borderRadius: '50%',
          bgcolor: 'primary.main',
          color: 'primary.contrastText',
          display: 'grid',
          placeItems: 'center',
          fontWeight: 700,
        }}
      >
        {step}
      </Box>
      <Box sx={{ minWidth: 0 }}>
        <Typography id={titleId} variant="h3" component="h3">
          {pkg.name}
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mb: 1 }}>
          {pkg.description}
        </Typography>
        <Stack direction="row" spacing={1} useFlexGap sx={{ flexWrap: 'wrap' }}>
          <Chip size="small" label={pkg.file} />
          <Chip size="small" label={pkg.size} />
          {pkg.version && <Chip size="small" label={`Version ${pkg.version}`} />}
        </Stack>
      </Box>
      <Box sx={{ alignSelf: 'center', gridColumn: { xs: '2', sm: 'auto' }, minWidth: 0 }}>
        {pkg.href ? (
          <Button
            variant="contained"
            startIcon={<DownloadIcon />}
            href={pkg.href}
            target="_blank"
            rel="noopener noreferrer"
            aria-label={`Download ${pkg.name}`}
          >
            Download
          </Button>
        ) : (
          <Typography variant="body2" sx={{ color: 'text.secondary' }}>
            {pkg.note}
          </Typography>
        )}
      </Box>
    </Paper>
  );
}

/** The Mac result, shown once the server has accepted the token (`SuccessTokenGate`). */
export function MacResult({ customerEmail, voucherCode }: { customerEmail: string; voucherCode?: string }) {
  return (
    <Stack spacing={3}>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <CheckCircleIcon color="success" sx={{ fontSize: 56 }} aria-hidden />
        <Typography variant="h1" sx={{ my: 1 }}>
          Redemption Successful!
        </Typography>
        <Typography>
          Installation instructions and download links have been sent to{' '}
          <Box component="strong" sx={{ display: 'block', overflowWrap: 'anywhere' }}>
            {customerEmail}
          </Box>
        </Typography>
        <Typography variant="body2" sx={{ color: 'text.secondary', mt: 1 }}>
          Can't find the e-mail? Please check your spam or junk folder.
        </Typography>
      </Paper>
      <Box component="section" aria-labelledby="mac-packages-title">
        <Typography id="mac-packages-title" variant="h2" sx={{ mb: 2, display: 'flex', alignItems: 'center', gap: 1 }}>
          <LaptopMacIcon color="primary" aria-hidden /> Installation packages
        </Typography>
        <Box component="ol" sx={{ listStyle: 'none', m: 0, p: 0, display: 'grid', gap: 2 }}>
          {MAC_PACKAGES.map((pkg, i) => (
            <PackageCard key={pkg.name} pkg={pkg} step={i + 1} />
          ))}
        </Box>
      </Box>

      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '1fr 1fr' }, alignItems: 'start' }}>
        <Paper variant="outlined" component="section" aria-labelledby="mac-requirements-title" sx={{ p: 3 }}>
          <Typography id="mac-requirements-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
            System Requirements
          </Typography>
          <Box component="ul" sx={{ m: 0, pl: 3 }}>
            {MAC_REQUIREMENTS.map((req) => (
              <Typography component="li" variant="body2" key={req}>
                {req}
              </Typography>
            ))}
          </Box>
          <Alert severity="info" sx={{ mt: 2 }}>
            The installation may take 10-15 minutes.
          </Alert>
        </Paper>
        <HelpPanel email={customerEmail} voucherCode={voucherCode} />
      </Box>
      <ReturnHomeButton />
    </Stack>
  );
}

/**
 * `/success/mac?token=…` (docs/product.md §2.5 Mac success page). Of the token answer the page shows only
 * `customerEmail`; it and `voucherCode` fill in the resend dialog (§19.4).
 */
export function MacSuccessPage() {
  useDocumentTitle(
    'Your Office License for Mac',
    'Your Office 2024 installation set for Mac: the three packages to install, in order.',
  );
  return (
    <PublicLayout footer={<SiteFooter />}>
      <SuccessTokenGate>
        {(data) => <MacResult customerEmail={data.customerEmail} voucherCode={data.voucherCode} />}
      </SuccessTokenGate>
    </PublicLayout>
  );
}

export default MacSuccessPage;
