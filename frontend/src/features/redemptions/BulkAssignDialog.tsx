import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import { useState } from 'react';
import { toast } from '../../components/toast';
import { invalidAssignment } from './redemptionsApi';

interface Props {
  count: number;
  busy: boolean;
  onSubmit: (values: { licenseKey: string; downloadLink: string }) => void;
  onClose: () => void;
}

/**
 * docs/product.md §3.8 bulk licence assignment: licence key (multi-line) and download link (URL) fields, a warning that the
 * same key and link go to every selected redemption, "Assign to N Redemptions" / "Assigning...". docs/product.md §6.3: both
 * fields must be non-empty after trim (blanks alone: docs/product.md §9.3's "Invalid input" toast); both are sent trimmed.
 */
export function BulkAssignDialog({ count, busy, onSubmit, onClose }: Props) {
  const [licenseKey, setLicenseKey] = useState('');
  const [downloadLink, setDownloadLink] = useState('');
  const [touched, setTouched] = useState({ licenseKey: false, downloadLink: false });
  const key = licenseKey.trim();
  const link = downloadLink.trim();
  const keyError = touched.licenseKey && !key ? 'License key is required.' : undefined;
  const linkError = touched.downloadLink && !link ? 'Download link is required.' : undefined;

  return (
    <Dialog open onClose={busy ? undefined : onClose} fullWidth maxWidth="sm" aria-labelledby="bulk-assign-title">
      <form
        noValidate
        onSubmit={(e) => {
          e.preventDefault();
          setTouched({ licenseKey: true, downloadLink: true });
          if (busy) return;
          const invalid = invalidAssignment(key, link);
          if (invalid) {
            toast({ title: 'Invalid input', description: invalid, variant: 'destructive' });
            return;
          }
          onSubmit({ licenseKey: key, downloadLink: link });
        }}
      >
        <DialogTitle id="bulk-assign-title">Assign Licenses</DialogTitle>
        <DialogContent>
          <Stack spacing={2} sx={{ pt: 1 }}>
            <Alert severity="warning">
              The same license key and download link will be assigned to all {count} selected redemptions. Make sure the
              license supports multiple activations.
            </Alert>
            <TextField
              label="License Key"
              multiline
              minRows={2}
              value={licenseKey}
              onChange={(e) => setLicenseKey(e.target.value)}
              onBlur={() => setTouched((t) => ({ ...t, licenseKey: true }))}
              error={!!keyError}
              helperText={keyError}
              required
              autoFocus
            />
            <TextField
              label="Download Link"
              type="url"
              value={downloadLink}
              onChange={(e) => setDownloadLink(e.target.value)}
              onBlur={() => setTouched((t) => ({ ...t, downloadLink: true }))}
              error={!!linkError}
              helperText={linkError}
              placeholder="https://"
              required
            />
          </Stack>
        </DialogContent>
        <DialogActions>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="contained" disabled={busy || !licenseKey || !downloadLink}>
            {busy ? 'Assigning...' : `Assign to ${count} Redemptions`}
          </Button>
        </DialogActions>
      </form>
    </Dialog>
  );
}
