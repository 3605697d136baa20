import CheckCircleIcon from '@mui/icons-material/CheckCircle';
import ErrorIcon from '@mui/icons-material/Error';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import FormControlLabel from '@mui/material/FormControlLabel';
import FormHelperText from '@mui/material/FormHelperText';
import InputLabel from '@mui/material/InputLabel';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { toast } from '../../components/toast';
import { errorText } from '../redemptions/errors';
import { LICENSE_TYPE_LABELS, parseBatchKeys } from './licenseRules';
import { type LicenseManagedProduct, type LicenseType } from './licensesApi';
import { useLicenseKeyControllerCreateMutation } from '../../api';

interface LineResult {
  key: string;
  ok: boolean;
  message: string;
}

interface Props {
  products: LicenseManagedProduct[];
  onClose: () => void;
}

/**
 * docs/product.md §3.9/§6.2 "Add License Key" with a Batch Entry toggle: batch mode takes one key a line (trimmed, empty lines
 * dropped) and sends one create request per key, then lists a result per line. Max Activations is shown only
 * for volume licences (numeric, minimum 1); the server answers docs/product.md §6.2's messages.
 */
export function AddLicenseKeyForm({ products, onClose }: Props) {
  const [productId, setProductId] = useState(products.length === 1 ? products[0].id : '');
  const [batch, setBatch] = useState(false);
  const [licenseKey, setLicenseKey] = useState('');
  const [batchKeys, setBatchKeys] = useState('');
  const [downloadLink, setDownloadLink] = useState('');
  const [licenseType, setLicenseType] = useState<LicenseType>('single-user');
  const [maxActivations, setMaxActivations] = useState('2');
  const [productError, setProductError] = useState<string>();
  const [results, setResults] = useState<LineResult[]>([]);
  const [busy, setBusy] = useState(false);
  const [create] = useLicenseKeyControllerCreateMutation();

  const keys = batch ? parseBatchKeys(batchKeys) : licenseKey.trim() ? [licenseKey.trim()] : [];

  function chooseProduct(id: string) {
    setProductId(id);
    setProductError(undefined);
    // The product's own download link is the usual one for its keys.
    const product = products.find((p) => p.id === id);
    if (product?.downloadLink && !downloadLink.trim()) setDownloadLink(product.downloadLink);
  }

  async function submit() {
    if (!productId) {
      setProductError('Product is required');
      return;
    }
    if (keys.length === 0) {
      toast({
        title: 'Failed to add license key',
        description: batch
          ? 'Enter at least one license key, one per line.'
          : 'License key must be at least 5 characters',
        variant: 'destructive',
      });
      return;
    }
    setBusy(true);
    const base = {
      productId,
      downloadLink: downloadLink.trim(),
      licenseType,
      ...(licenseType === 'volume' ? { maxActivations: Number(maxActivations) } : {}),
    };
    const lineResults: LineResult[] = [];
    // One request per key, in order, so each line gets its own answer.
    for (const key of keys) {
      try {
        const created = await create({ ...base, licenseKey: key }).unwrap();
        lineResults.push({ key, ok: true, message: `Added ${created.licenseKey}` });
      } catch (err) {
        lineResults.push({ key, ok: false, message: errorText(err, 'Failed to add license key') });
      }
    }
    setBusy(false);
    const failed = lineResults.filter((r) => !r.ok);
    const added = lineResults.length - failed.length;
    if (batch) {
      setResults(lineResults);
      // Keep only the lines that failed, to fix and send again.
      setBatchKeys(failed.map((r) => r.key).join('\n'));
      if (failed.length === 0) {
        toast({
          title: 'License keys added',
          description: `${added} of ${lineResults.length} license keys added.`,
          variant: 'success',
        });
      } else {
        toast({
          title: 'Failed to add license key',
          description: `${failed.length} of ${lineResults.length} license keys could not be added.`,
          variant: 'destructive',
        });
      }
    } else if (failed.length === 0) {
      setResults([]);
      setLicenseKey('');
      toast({ title: 'License key added', description: lineResults[0].message, variant: 'success' });
    } else {
      setResults([]);
      toast({ title: 'Failed to add license key', description: failed[0].message, variant: 'destructive' });
    }
  }

  return (
    <Paper
      component="form"
      aria-label="Add License Key"
      variant="outlined"
      noValidate
      sx={{ p: 2, mb: 2 }}
      onSubmit={(e) => {
        e.preventDefault();
        if (!busy) void submit();
      }}
    >
      <Stack direction="row" sx={{ alignItems: 'center', mb: 2 }}>
        <Typography variant="h3" sx={{ fontSize: '1.05rem', flex: 1 }}>
          Add License Key
        </Typography>
        <FormControlLabel
          control={
            <Switch
              checked={batch}
              onChange={(e) => {
                setBatch(e.target.checked);
                setResults([]);
              }}
            />
          }
          label="Batch Entry"
        />
      </Stack>
      <Stack spacing={2}>
        <FormControl size="small" error={!!productError} required>
          <InputLabel id="license-product-label">Product</InputLabel>
          <Select
            labelId="license-product-label"
            label="Product"
            value={productId}
            onChange={(e) => chooseProduct(e.target.value)}
          >
            {products.map((p) => (
              <MenuItem key={p.id} value={p.id}>
                {p.name}
              </MenuItem>
            ))}
          </Select>
          {productError && <FormHelperText>{productError}</FormHelperText>}
        </FormControl>
        {batch ? (
          <TextField
            label="License Keys (one per line)"
            multiline
            minRows={4}
            value={batchKeys}
            onChange={(e) => setBatchKeys(e.target.value)}
            helperText={`${keys.length} key(s) to add`}
            slotProps={{ htmlInput: { style: { fontFamily: 'monospace' } } }}
          />
        ) : (
          <TextField
            label="License Key"
            size="small"
            value={licenseKey}
            onChange={(e) => setLicenseKey(e.target.value.toUpperCase())}
            placeholder="XXXXX-XXXXX-XXXXX-XXXXX-XXXXX"
            slotProps={{ htmlInput: { maxLength: 29, style: { fontFamily: 'monospace' } } }}
          />
        )}
        <TextField
          label="Download Link"
          size="small"
          type="url"
          value={downloadLink}
          onChange={(e) => setDownloadLink(e.target.value)}
          placeholder="https://"
          required
        />
        <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2}>
          <FormControl size="small" sx={{ minWidth: 200 }}>
            <InputLabel id="license-type-label">License Type</InputLabel>
            <Select
              labelId="license-type-label"
              label="License Type"
              value={licenseType}
              onChange={(e) => setLicenseType(e.target.value as LicenseType)}
            >
              <MenuItem value="single-user">{LICENSE_TYPE_LABELS['single-user']}</MenuItem>
              <MenuItem value="volume">{LICENSE_TYPE_LABELS.volume}</MenuItem>
            </Select>
          </FormControl>
          {licenseType === 'volume' && (
            <TextField
              label="Max Activations"
              size="small"
              type="number"
              value={maxActivations}
              onChange={(e) => setMaxActivations(e.target.value)}
              slotProps={{ htmlInput: { min: 1, step: 1 } }}
            />
          )}
        </Stack>
        <Stack direction="row" spacing={1}>
          <Button type="submit" variant="contained" disabled={busy}>
            {busy ? 'Adding...' : batch ? `Add ${keys.length} License Key(s)` : 'Add License Key'}
          </Button>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
        </Stack>
      </Stack>
      {results.length > 0 && (
        <Box sx={{ mt: 2 }}>
          <Typography variant="subtitle2">Results</Typography>
          <List dense aria-label="Batch results">
            {results.map((r, i) => (
              <ListItem key={`${i}-${r.key}`} disableGutters>
                <ListItemIcon sx={{ minWidth: 32 }}>
                  {r.ok ? (
                    <CheckCircleIcon color="success" fontSize="small" />
                  ) : (
                    <ErrorIcon color="error" fontSize="small" />
                  )}
                </ListItemIcon>
                <ListItemText
                  primary={r.key}
                  secondary={r.message}
                  slotProps={{ primary: { sx: { fontFamily: 'monospace' } } }}
                />
              </ListItem>
            ))}
          </List>
        </Box>
      )}
    </Paper>
  );
}
