import CheckIcon from '@mui/icons-material/Check';
import ContentCopyIcon from '@mui/icons-material/ContentCopy';
import VerifiedIcon from '@mui/icons-material/Verified';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { maskLicenseKey } from '../../utils/maskLicenseKey';

/** The customer's product key, masked (docs/product.md §10.6) unless revealed, with "Copy Product Key". */
export function ProductKeyPanel({ licenseKey }: { licenseKey: string }) {
  const [revealed, setRevealed] = useState(false);
  const { copy, copied } = useCopyToClipboard();
  return (
    <Paper variant="outlined" component="section" aria-labelledby="product-key-title" sx={{ p: 3 }}>
      <Typography id="product-key-title" variant="h2" sx={{ fontSize: '1.15rem', mb: 1 }}>
        Your Product Key
      </Typography>
      <Stack direction="row" spacing={1} useFlexGap sx={{ mb: 2, flexWrap: 'wrap' }}>
        <Chip icon={<VerifiedIcon />} color="success" label="Verified & Authenticated" size="small" />
        <Chip label="Genuine" color="primary" variant="outlined" size="small" />
        <Chip label="Perpetual License" color="primary" variant="outlined" size="small" />
      </Stack>
      <Box sx={{ display: 'flex', alignItems: 'center', gap: 1, bgcolor: 'grey.100', borderRadius: 1, px: 2, py: 1.5 }}>
        <Typography
          data-testid="product-key"
          aria-label={revealed ? 'Product key' : 'Product key (masked)'}
          sx={{
            fontFamily: 'ui-monospace, Menlo, Consolas, monospace',
            fontSize: '1.1rem',
            letterSpacing: 1,
            flex: 1,
            wordBreak: 'break-all',
          }}
        >
          {revealed ? licenseKey : maskLicenseKey(licenseKey)}
        </Typography>
        <IconButton
          onClick={() => setRevealed((r) => !r)}
          aria-label={revealed ? 'Hide product key' : 'Show product key'}
          aria-pressed={revealed}
        >
          {revealed ? <VisibilityOffIcon /> : <VisibilityIcon />}
        </IconButton>
      </Box>
      <Button
        variant="contained"
        sx={{ mt: 2 }}
        startIcon={copied ? <CheckIcon /> : <ContentCopyIcon />}
        onClick={() => void copy(licenseKey, { label: 'Product Key' })}
      >
        Copy Product Key
      </Button>
      <Alert severity="warning" sx={{ mt: 2 }}>
        Keep this product key secure: you need it to install and activate, and again for any reinstallation.
      </Alert>
    </Paper>
  );
}
