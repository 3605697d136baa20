import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import DownloadIcon from '@mui/icons-material/Download';
import HourglassTopIcon from '@mui/icons-material/HourglassTop';
import MailOutlinedIcon from '@mui/icons-material/MailOutlined';
import Alert from '@mui/material/Alert';
import AlertTitle from '@mui/material/AlertTitle';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Step from '@mui/material/Step';
import StepLabel from '@mui/material/StepLabel';
import Stepper from '@mui/material/Stepper';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { PublicLayout } from '../site/PublicLayout';
import { SiteFooter } from '../site/SiteFooter';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { HelpPanel } from './HelpPanel';
import { ProductKeyPanel } from './ProductKeyPanel';
import { ReturnHomeButton } from './ReturnHomeButton';
import type { SuccessTokenView } from './successApi';
import { SuccessTokenGate } from './SuccessTokenGate';

/** docs/product.md §2.4: fixed download information of the Windows installer. */
export const DOWNLOAD_INFO: ReadonlyArray<[string, string]> = [
  ['File size', '3.4 MB'],
  ['Version', '16.0.17830.20138'],
  ['Release date', 'October 2024'],
  ['Language', 'English (US)'],
  ['Architecture', '64-bit'],
  ['License', 'Perpetual'],
];

const INSTALL_STEPS = [
  { title: 'Download and install', text: 'Run the downloaded installer and follow the instructions on screen.' },
  { title: 'Open an Office app', text: 'Start Word, Excel or PowerPoint once the installation has finished.' },
  { title: 'Enter the product key', text: 'When asked, type or paste your product key.' },
  { title: 'Activate', text: 'Confirm the activation; your perpetual licence is then ready to use.' },
];

const MANUAL_STEPS = ['Voucher Successfully Redeemed', 'License Assignment in Progress', 'Email Delivery (2-3 hours)'];

function ManualProcessingView() {
  return (
    <Stack spacing={3}>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <HourglassTopIcon color="primary" sx={{ fontSize: 56 }} aria-hidden />
        <Typography variant="h1" sx={{ my: 1 }}>
          Processing Your License
        </Typography>
        <Typography sx={{ color: 'text.secondary' }}>
          We are preparing your license key & download link. You will get it shortly within 2-3 hours.
        </Typography>
        <Stepper activeStep={1} alternativeLabel sx={{ mt: 4 }} aria-label="Progress">
          {MANUAL_STEPS.map((label) => (
            <Step key={label}>
              <StepLabel>{label}</StepLabel>
            </Step>
          ))}
        </Stepper>
      </Paper>
      <Alert severity="info" icon={<MailOutlinedIcon />}>
        <AlertTitle>What's Next?</AlertTitle>
        Check your e-mail within 2-3 hours for your license key and download link, including your spam or junk folder.
      </Alert>
    </Stack>
  );
}

/** "Download Ready", the e-mail, the download button and the product key. */
function DownloadReadyView({ data }: { data: SuccessTokenView }) {
  const [initializing, setInitializing] = useState(false);
  return (
    <Stack spacing={3}>
      <Paper variant="outlined" sx={{ p: { xs: 3, sm: 5 }, textAlign: 'center' }}>
        <CheckCircleIcon color="success" sx={{ fontSize: 56 }} aria-hidden />
        <Typography variant="h1" sx={{ my: 1 }}>
          Download Ready
        </Typography>
        <Typography sx={{ color: 'text.secondary' }}>
          Your license has also been delivered to{' '}
          <Box component="strong" sx={{ overflowWrap: 'anywhere' }}>
            {data.customerEmail}
          </Box>
          .
        </Typography>
        {data.downloadLink && (
          <Box sx={{ mt: 3 }}>
            <Button
              variant="contained"
              size="large"
              startIcon={<DownloadIcon />}
              href={data.downloadLink}
              target="_blank"
              rel="noopener noreferrer"
              onClick={() => setInitializing(true)}
            >
              Download Now
            </Button>
            <Typography role="status" variant="body2" sx={{ color: 'text.secondary', mt: 1, minHeight: '1.5em' }}>
              {initializing ? 'Initializing download...' : ''}
            </Typography>
          </Box>
        )}
      </Paper>
      {data.licenseKey && <ProductKeyPanel licenseKey={data.licenseKey} />}
    </Stack>
  );
}

function DownloadInformation() {
  return (
    <Paper variant="outlined" component="section" aria-labelledby="download-info-title" sx={{ p: 3 }}>
      <Typography id="download-info-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
        Download Information
      </Typography>
      <Box component="dl" sx={{ display: 'grid', gridTemplateColumns: 'auto 1fr', columnGap: 2, rowGap: 0.5, m: 0 }}>
        {DOWNLOAD_INFO.map(([term, value]) => (
          <Box key={term} sx={{ display: 'contents' }}>
            <Typography component="dt" variant="body2" sx={{ color: 'text.secondary' }}>
              {term}
            </Typography>
            <Typography component="dd" variant="body2" sx={{ m: 0, fontWeight: 600 }}>
              {value}
            </Typography>
          </Box>
        ))}
      </Box>
    </Paper>
  );
}

function InstallationSteps() {
  return (
    <Paper variant="outlined" component="section" aria-labelledby="install-steps-title" sx={{ p: 3 }}>
      <Typography id="install-steps-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
        Installation Steps
      </Typography>
      <Box component="ol" sx={{ m: 0, pl: 3, display: 'grid', gap: 1 }}>
        {INSTALL_STEPS.map((step) => (
          <li key={step.title}>
            <Typography variant="subtitle2" component="span">
              {step.title}
            </Typography>
            <Typography variant="body2" sx={{ color: 'text.secondary' }}>
              {step.text}
            </Typography>
          </li>
        ))}
      </Box>
    </Paper>
  );
}

/** The Windows result, shown once the server has accepted the token (`SuccessTokenGate`). */
export function WindowsResult({ data }: { data: SuccessTokenView }) {
  return (
    <>
      <Box sx={{ display: 'grid', gap: 3, gridTemplateColumns: { xs: '1fr', md: '3fr 2fr' }, alignItems: 'start' }}>
        {data.isManualProcessing ? <ManualProcessingView /> : <DownloadReadyView data={data} />}
        <Stack spacing={3}>
          {!data.isManualProcessing && <DownloadInformation />}
          {!data.isManualProcessing && <InstallationSteps />}
          <HelpPanel email={data.customerEmail} voucherCode={data.voucherCode} />
        </Stack>
      </Box>
      <ReturnHomeButton />
    </>
  );
}

/** `/success/windows?token=…` (docs/product.md §2.4 Windows success page). */
export function WindowsSuccessPage() {
  useDocumentTitle(
    'Your Office License',
    'Your Office 2024 licence key, download link and installation steps for Windows.',
  );
  return (
    <PublicLayout footer={<SiteFooter showSupportEmail />}>
      <SuccessTokenGate>{(data) => <WindowsResult data={data} />}</SuccessTokenGate>
    </PublicLayout>
  );
}

export default WindowsSuccessPage;
