import CloudUpload from '@mui/icons-material/CloudUpload';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useRef, useState } from 'react';
import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import { useAppDispatch } from '../../app/store';
import { toast } from '../../components/toast';
import type { Product, UploadReport } from './productsApi';
import { CodeFileDropZone } from './CodeFileDropZone';
import { uploadVoucherFile } from './uploadVoucherFile';

/** docs/product.md §3.11 voucher upload control: CSV or TXT by click or drag-and-drop, then "Upload Codes". */
export function VoucherUpload({ product }: { product: Product }) {
  const dispatch = useAppDispatch();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [progress, setProgress] = useState<number | null>(null);
  const [report, setReport] = useState<UploadReport | null>(null);
  const inputId = `voucher-file-${product.id}`;

  const choose = (chosen: File | null) => {
    setReport(null);
    setFile(chosen);
  };

  const upload = async () => {
    if (!file) return;
    setProgress(0);
    try {
      const result = await uploadVoucherFile(product.id, file, setProgress);
      setReport(result);
      toast({ title: 'Upload Successful', description: result.message, variant: 'success' });
      setFile(null);
      if (input.current) input.current.value = '';
      dispatch(api.util.invalidateTags(invalidatesFor('uploadVoucherCodes')));
    } catch (err) {
      toast({
        title: 'Upload Failed',
        description: (err as Error).message || 'Failed to upload voucher codes.',
        variant: 'destructive',
      });
    } finally {
      setProgress(null);
    }
  };

  const uploading = progress !== null;
  return (
    <Stack spacing={1.5} aria-label={`Upload voucher codes for ${product.name}`} role="group">
      <CodeFileDropZone
        inputId={inputId}
        inputRef={input}
        file={file}
        label={`Voucher file for ${product.name}`}
        testId={`dropzone-${product.id}`}
        refusedTitle="Upload Failed"
        onFile={choose}
      />
      {uploading && (
        <Box>
          <LinearProgress
            variant="determinate"
            value={Math.round((progress ?? 0) * 100)}
            aria-label="Upload progress"
          />
          <Typography variant="caption" sx={{ color: 'text.secondary' }}>
            Uploading... {Math.round((progress ?? 0) * 100)}%
          </Typography>
        </Box>
      )}
      <Button
        variant="contained"
        startIcon={<CloudUpload />}
        disabled={!file || uploading}
        onClick={() => void upload()}
      >
        {uploading ? 'Uploading...' : 'Upload Codes'}
      </Button>
      {report && (
        <Alert
          severity={report.inserted > 0 ? 'success' : 'info'}
          data-testid="upload-report"
          onClose={() => setReport(null)}
        >
          <strong>{report.inserted}</strong> inserted, <strong>{report.duplicates}</strong> duplicate
          {report.duplicates === 1 ? '' : 's'}, <strong>{report.invalid}</strong> invalid
          {report.invalidSamples.length > 0 && (
            <Typography variant="caption" component="div">
              Invalid examples: {report.invalidSamples.slice(0, 5).join(', ')}
            </Typography>
          )}
        </Alert>
      )}
    </Stack>
  );
}
