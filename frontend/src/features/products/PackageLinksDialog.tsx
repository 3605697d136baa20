import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { type Product } from './productsApi';
import { useProductControllerUpdateMutation } from '../../api';

type LinkField = 'activationLink' | 'removalToolLink';

/** The per-field messages of a 400 (`errors: [{field, message}]`, docs/product.md §9.1). */
function fieldErrors(error: unknown): Partial<Record<LinkField, string>> {
  const errors = (error as { data?: { errors?: Array<{ field?: string; message?: string }> } })?.data?.errors;
  const found: Partial<Record<LinkField, string>> = {};
  for (const e of errors ?? []) {
    if ((e.field === 'activationLink' || e.field === 'removalToolLink') && e.message) found[e.field] = e.message;
  }
  return found;
}

/**
 * docs/product.md §12.7: a Mac product's licence package (License Activation) link and Removal Tool link, sent with
 * the order e-mail and shown in the licence centre. Empty clears a link; the server checks both (HTTPS URLs).
 */
export function PackageLinksDialog({
  product,
  open,
  onClose,
}: {
  product: Product;
  open: boolean;
  onClose: () => void;
}) {
  const [activationLink, setActivationLink] = useState(product.activationLink ?? '');
  const [removalToolLink, setRemovalToolLink] = useState(product.removalToolLink ?? '');
  const [errors, setErrors] = useState<Partial<Record<LinkField, string>>>({});
  const [save, { isLoading }] = useProductControllerUpdateMutation();
  const titleId = `package-links-title-${product.id}`;

  const onSave = async () => {
    const result = await save({
      id: product.id,
      updateProductDto: { activationLink: activationLink.trim(), removalToolLink: removalToolLink.trim() },
    });
    if ('error' in result) {
      setErrors(fieldErrors(result.error));
      toast({
        title: 'Update Failed',
        description: bodyMessage(result.error) ?? 'Failed to save the package links. Please try again.',
        variant: 'destructive',
      });
      return;
    }
    toast({
      title: 'Package Links Updated',
      description: `The package links of ${product.name} have been saved.`,
      variant: 'success',
    });
    onClose();
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="sm" aria-labelledby={titleId}>
      <DialogTitle id={titleId}>Package Links - {product.name}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>
          <Typography variant="body2" sx={{ color: 'text.secondary' }}>
            {product.isLicenseManaged
              ? "This product is license-managed: each customer's licence package is their key's own download link. The link below is not used."
              : 'The licence package every customer of this product gets with the order e-mail ({{activation_link}}) and in My licences.'}
          </Typography>
          <TextField
            label="Licence package link (License Activation)"
            type="url"
            value={activationLink}
            onChange={(e) => setActivationLink(e.target.value)}
            error={!!errors.activationLink}
            helperText={errors.activationLink ?? 'HTTPS link; leave empty to remove it.'}
            fullWidth
          />
          <TextField
            label="Office Removal Tool link"
            type="url"
            value={removalToolLink}
            onChange={(e) => setRemovalToolLink(e.target.value)}
            error={!!errors.removalToolLink}
            helperText={errors.removalToolLink ?? "HTTPS link ({{removal_tool_link}}); empty: the vendor's own."}
            fullWidth
          />
          {!product.isLicenseManaged && !activationLink.trim() && (
            <Alert severity="warning">Without a licence package link, Mac customers cannot activate.</Alert>
          )}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={() => void onSave()} disabled={isLoading}>
          {isLoading ? 'Saving...' : 'Save'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
