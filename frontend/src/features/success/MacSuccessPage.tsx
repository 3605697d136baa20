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

function PackageCard({ pkg, step }: { pkg: MacPackage; step: number }) {
  const titleId = `mac-package-${step}`;
  return (
    <Paper
      component="li"
      variant="outlined"
      aria-labelledby={titleId}
      sx={{ p: 3, display: 'flex', gap: 2, flexWrap: { xs: 'wrap', sm: 'nowrap' } }}
    >
      <Box
        aria-hidden
        sx={{
          flex: '0 0 40px',
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
      <Box sx={{ flex: 1, minWidth: 0 }}>
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
      <Box sx={{ alignSelf: 'center' }}>
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
export function MacResult({ customerEmail }: { customerEmail: string }) {
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
        <HelpPanel email={customerEmail} />
      </Box>
      <ReturnHomeButton />
    </Stack>
  );
}

/** `/success/mac?token=…` (docs/product.md §2.5 Mac success page). Only `customerEmail` of the token answer is used. */
export function MacSuccessPage() {
  useDocumentTitle(
    'Your Office License for Mac',
    'Your Office 2024 installation set for Mac: the three packages to install, in order.',
  );
  return (
    <PublicLayout footer={<SiteFooter />}>
      <SuccessTokenGate>{(data) => <MacResult customerEmail={data.customerEmail} />}</SuccessTokenGate>
    </PublicLayout>
  );
}

export default MacSuccessPage;
