import Send from '@mui/icons-material/Send';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import Grid from '@mui/material/Grid';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useMemo, useState } from 'react';
import { toast } from '../../components/toast';
import { bodyMessage } from '../../utils/httpError';
import { type Product } from './productsApi';
import { renderTemplatePreview, SAMPLE_VALUES } from './templatePreview';
import {
  useAuthControllerMeQuery,
  useProductControllerTestEmailMutation,
  useProductControllerUpdateMutation,
} from '../../api';

/** docs/product.md §3.10 email template editor: subject, template, live preview with sample values, Send Test Email. */
export function EmailTemplateEditor({
  product,
  open,
  onClose,
}: {
  product: Product;
  open: boolean;
  onClose: () => void;
}) {
  const { data: me } = useAuthControllerMeQuery();
  const [subject, setSubject] = useState(product.emailSubject);
  const [template, setTemplate] = useState(product.emailTemplate);
  const [to, setTo] = useState(me?.email ?? '');
  const [save, { isLoading: saving }] = useProductControllerUpdateMutation();
  const [sendTest, { isLoading: sending }] = useProductControllerTestEmailMutation();

  const values = useMemo(
    () => ({
      ...SAMPLE_VALUES,
      product_name: product.name,
      download_link: product.downloadLink || SAMPLE_VALUES.download_link,
      activation_link: product.activationLink || SAMPLE_VALUES.activation_link,
      removal_tool_link: product.removalToolLink || SAMPLE_VALUES.removal_tool_link,
    }),
    [product],
  );
  const previewHtml = useMemo(() => renderTemplatePreview(template, values), [template, values]);
  const previewSubject = useMemo(() => renderTemplatePreview(subject, values, false), [subject, values]);

  const onSave = async () => {
    const result = await save({ id: product.id, updateProductDto: { emailSubject: subject, emailTemplate: template } });
    if ('error' in result) {
      toast({
        title: 'Update Failed',
        description: 'Failed to update email template. Please try again.',
        variant: 'destructive',
      });
      return;
    }
    toast({
      title: 'Template Updated',
      description: `The email template of ${product.name} has been saved.`,
      variant: 'success',
    });
    onClose();
  };

  const onSendTest = async () => {
    const result = await sendTest({
      id: product.id,
      testEmailDto: { to: to.trim(), emailSubject: subject, emailTemplate: template },
    });
    if ('error' in result) {
      toast({
        title: 'Test Email Failed',
        description: bodyMessage(result.error) ?? 'The test email could not be sent.',
        variant: 'destructive',
      });
      return;
    }
    toast({ title: 'Test Email Sent', description: result.data.message, variant: 'success' });
  };

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="lg" aria-labelledby={`template-title-${product.id}`}>
      <DialogTitle id={`template-title-${product.id}`}>Email Template - {product.name}</DialogTitle>
      <DialogContent dividers>
        <Grid container spacing={3}>
          <Grid size={{ xs: 12, md: 6 }}>
            <Stack spacing={2}>
              <TextField label="Email Subject" value={subject} onChange={(e) => setSubject(e.target.value)} fullWidth />
              <TextField
                label="Email Template"
                value={template}
                onChange={(e) => setTemplate(e.target.value)}
                multiline
                minRows={14}
                maxRows={24}
                fullWidth
                slotProps={{ htmlInput: { style: { fontFamily: 'monospace', fontSize: 13 } } }}
              />
              <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', alignItems: 'center' }}>
                <Typography variant="caption" sx={{ color: 'text.secondary' }}>
                  Variables:
                </Typography>
                {Object.keys(SAMPLE_VALUES).map((name) => (
                  <Chip key={name} size="small" variant="outlined" label={`{{${name}}}`} />
                ))}
              </Stack>
            </Stack>
          </Grid>
          <Grid size={{ xs: 12, md: 6 }}>
            <Stack spacing={1} sx={{ height: '100%' }}>
              <Typography variant="subtitle2">Live Preview</Typography>
              <Typography variant="body2" data-testid="preview-subject">
                <strong>Subject:</strong> {previewSubject}
              </Typography>
              <Box
                component="iframe"
                title="Email preview"
                sandbox=""
                srcDoc={previewHtml}
                sx={{
                  flex: 1,
                  minHeight: 320,
                  width: '100%',
                  border: 1,
                  borderColor: 'divider',
                  borderRadius: 1,
                  bgcolor: '#fff',
                }}
              />
              <Stack direction="row" spacing={1} sx={{ alignItems: 'flex-start' }}>
                <TextField
                  size="small"
                  label="Send test to"
                  type="email"
                  value={to}
                  onChange={(e) => setTo(e.target.value)}
                  helperText="Staff account addresses only, at most 10 per hour"
                  sx={{ flex: 1 }}
                />
                <Button
                  variant="outlined"
                  startIcon={<Send />}
                  onClick={() => void onSendTest()}
                  disabled={sending || !to.trim()}
                >
                  {sending ? 'Sending...' : 'Send Test Email'}
                </Button>
              </Stack>
            </Stack>
          </Grid>
        </Grid>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose}>Cancel</Button>
        <Button variant="contained" onClick={() => void onSave()} disabled={saving}>
          {saving ? 'Saving...' : 'Save Template'}
        </Button>
      </DialogActions>
    </Dialog>
  );
}
