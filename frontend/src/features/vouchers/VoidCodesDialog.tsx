import Block from '@mui/icons-material/Block';
import Alert from '@mui/material/Alert';
import Button from '@mui/material/Button';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogContentText from '@mui/material/DialogContentText';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import { useAppDispatch } from '../../app/store';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { toast } from '../../components/toast';
import { CodeFileDropZone } from '../products/CodeFileDropZone';
import type { Product, VoidReport } from '../products/productsApi';
import { postCodeFile } from '../products/uploadVoucherFile';

const FAILED = 'Failed to void voucher codes.';

/** The pasted codes, one a line (blank lines dropped), as the server counts them. */
export function pastedCodes(text: string): string[] {
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

function Report({ report }: { report: VoidReport }) {
  const refunded = report.refundedAfterRedemption;
  return (
    <Alert severity={report.voided > 0 || refunded.length > 0 ? 'success' : 'info'} data-testid="void-report">
      <Typography variant="body2">
        <strong>{report.voided}</strong> voided, <strong>{refunded.length}</strong> refunded after redemption,{' '}
        <strong>{report.alreadyVoid}</strong> already void, <strong>{report.unknown}</strong> unknown
        {report.invalid > 0 && (
          <>
            , <strong>{report.invalid}</strong> invalid
          </>
        )}
      </Typography>
      {refunded.length > 0 && (
        <Typography variant="caption" component="div" sx={{ mt: 0.5 }}>
          Already redeemed (the customers keep their licence; the redemptions are marked refunded):{' '}
          {refunded
            .slice(0, 20)
            .map((r) => r.code)
            .join(', ')}
          {refunded.length > 20 ? ` and ${refunded.length - 20} more` : ''}
        </Typography>
      )}
      {report.invalidSamples.length > 0 && (
        <Typography variant="caption" component="div">
          Invalid examples: {report.invalidSamples.slice(0, 5).join(', ')}
        </Typography>
      )}
    </Alert>
  );
}

/**
 * "Void Codes" of a product card (docs/product.md §19.3 refunds): paste codes or drop a CSV/TXT file, confirm, see the
 * report. Pasted codes are sent as a text file, so a long list is streamed like an upload.
 */
export function VoidCodesDialog({
  product,
  open,
  onClose,
}: {
  product: Pick<Product, 'id' | 'name'>;
  open: boolean;
  onClose: () => void;
}) {
  const dispatch = useAppDispatch();
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [confirming, setConfirming] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [report, setReport] = useState<VoidReport | null>(null);
  const codes = pastedCodes(text);
  const busy = progress !== null;

  const choose = (chosen: File | null) => {
    setReport(null);
    setFile(chosen);
  };

  const send = async () => {
    const body = file ?? new File([codes.join('\n')], 'pasted-codes.txt', { type: 'text/plain' });
    setProgress(0);
    try {
      const result = await postCodeFile<VoidReport>(
        `/api/products/${encodeURIComponent(product.id)}/voucher-codes/void`,
        body,
        setProgress,
        FAILED,
      );
      setReport(result);
      setText('');
      setFile(null);
      toast({ title: 'Codes Voided', description: result.message, variant: 'success' });
      dispatch(api.util.invalidateTags(invalidatesFor('voidVoucherCodes')));
    } catch (err) {
      toast({ title: 'Void Failed', description: (err as Error).message || FAILED, variant: 'destructive' });
    } finally {
      setProgress(null);
      setConfirming(false);
    }
  };

  const what = file ? `every code in ${file.name}` : `${codes.length} voucher code${codes.length === 1 ? '' : 's'}`;
  return (
    <Dialog
      open={open}
      onClose={busy ? undefined : onClose}
      fullWidth
      maxWidth="sm"
      aria-labelledby={`void-title-${product.id}`}
    >
      <DialogTitle id={`void-title-${product.id}`}>Void Codes - {product.name}</DialogTitle>
      <DialogContent dividers>
        <Stack spacing={2}>
          <DialogContentText variant="body2">
            For vouchers the marketplace refunded. Unredeemed codes become void and can never be redeemed. Codes already
            redeemed stay with their customer (a licence key that was shown is never reused) and their redemption is
            marked refunded.
          </DialogContentText>
          <TextField
            label="Voucher codes (one per line)"
            multiline
            minRows={4}
            maxRows={10}
            value={text}
            disabled={!!file || busy}
            onChange={(e) => {
              setText(e.target.value);
              setReport(null);
            }}
          />
          <CodeFileDropZone
            inputId={`void-file-${product.id}`}
            file={file}
            label={`Void file for ${product.name}`}
            refusedTitle="Void Failed"
            onFile={choose}
          />
          {file && (
            <Button size="small" onClick={() => setFile(null)} disabled={busy} sx={{ alignSelf: 'flex-start' }}>
              Remove file
            </Button>
          )}
          {busy && (
            <LinearProgress
              variant="determinate"
              value={Math.round((progress ?? 0) * 100)}
              aria-label="Void progress"
            />
          )}
          {report && <Report report={report} />}
        </Stack>
      </DialogContent>
      <DialogActions>
        <Button onClick={onClose} disabled={busy}>
          Close
        </Button>
        <Button
          color="error"
          variant="contained"
          startIcon={<Block />}
          disabled={busy || (!file && codes.length === 0)}
          onClick={() => setConfirming(true)}
        >
          Void Codes
        </Button>
      </DialogActions>
      <ConfirmDialog
        open={confirming}
        title="Void Codes"
        confirmLabel="Void"
        busy={busy}
        onConfirm={() => void send()}
        onClose={() => setConfirming(false)}
      >
        Void {what} of {product.name}? Void codes can never be redeemed. This action cannot be undone.
      </ConfirmDialog>
    </Dialog>
  );
}
