import DeleteOutlinedIcon from '@mui/icons-material/DeleteOutlined';
import FileDownloadOutlinedIcon from '@mui/icons-material/FileDownloadOutlined';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { bodyMessage } from '../../utils/httpError';
import { downloadCustomerData } from './licenceCentreApi';
import { useCustomerCentreControllerEraseMutation } from '../../api';

/** "Your data": download everything stored about the customer, or delete their personal data (with a confirmation). */
export function PrivacyPanel({
  token,
  onErased,
  onExpired,
}: {
  token: string;
  onErased: (message: string) => void;
  onExpired: () => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);
  const [downloading, setDownloading] = useState(false);
  const [erase, { isLoading }] = useCustomerCentreControllerEraseMutation();

  const download = async () => {
    setDownloading(true);
    setFailure(null);
    const ok = await downloadCustomerData(token).catch(() => false);
    setDownloading(false);
    if (!ok) setFailure('Your data could not be downloaded. Please sign in again and retry.');
  };

  const confirm = async () => {
    const result = await erase({ confirm: true });
    setConfirming(false);
    if ('error' in result) {
      if (result.error && 'status' in result.error && result.error.status === 401) return onExpired();
      setFailure(
        bodyMessage(result.error) ?? 'Your data could not be deleted. Please try again later or contact support.',
      );
    } else onErased(result.data.message);
  };

  return (
    <Paper variant="outlined" component="section" aria-labelledby="your-data-title" sx={{ p: 3 }}>
      <Typography id="your-data-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
        Your data
      </Typography>
      <Typography variant="body2" sx={{ color: 'text.secondary', mb: 2 }}>
        Download a copy of everything we store about you, or have your personal data (names, e-mail address, phone
        number, zip code, IP address) deleted. Your licences stay valid either way.
      </Typography>
      {failure && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {failure}
        </Alert>
      )}
      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
        <Button
          variant="outlined"
          startIcon={<FileDownloadOutlinedIcon />}
          onClick={() => void download()}
          disabled={downloading}
        >
          Download my data
        </Button>
        <Button variant="outlined" color="error" startIcon={<DeleteOutlinedIcon />} onClick={() => setConfirming(true)}>
          Delete my personal data
        </Button>
      </Stack>
      <ConfirmDialog
        open={confirming}
        title="Delete your personal data?"
        confirmLabel="Delete my data"
        busy={isLoading}
        onConfirm={() => void confirm()}
        onClose={() => setConfirming(false)}
      >
        We will send a confirmation to your e-mail address, then delete your names, e-mail address, phone number, zip
        code and IP address from our records. Your licences stay valid, but you will no longer be able to sign in here
        or have their e-mails sent again. This cannot be undone.
      </ConfirmDialog>
    </Paper>
  );
}
