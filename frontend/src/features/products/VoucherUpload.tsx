import CloudUpload from '@mui/icons-material/CloudUpload';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { useRef, useState, type DragEvent } from 'react';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/store';
import { toast } from '../../components/toast';
import type { Product, UploadReport } from './productsApi';
import { isAcceptedVoucherFile, uploadVoucherFile } from './uploadVoucherFile';

/** SPEC §2 voucher upload control: CSV or TXT by click or drag-and-drop, then "Upload Codes". */
export function VoucherUpload({ product }: { product: Product }) {
  const dispatch = useAppDispatch();
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File | null>(null);
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<number | null>(null);
  const [report, setReport] = useState<UploadReport | null>(null);
  const inputId = `voucher-file-${product.id}`;

  const choose = (chosen: File | undefined) => {
    setReport(null);
    if (!chosen) return;
    if (!isAcceptedVoucherFile(chosen)) {
      setFile(null);
      toast({ title: 'Upload Failed', description: 'Only .csv and .txt files are accepted.', variant: 'destructive' });
      return;
    }
    setFile(chosen);
  };

  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer.files?.[0]);
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
      dispatch(api.util.invalidateTags([{ type: 'Products', id: 'LIST' }, { type: 'Stats', id: 'LIST' }, { type: 'VoucherCodes', id: 'LIST' }]));
    } catch (err) {
      toast({ title: 'Upload Failed', description: (err as Error).message || 'Failed to upload voucher codes.', variant: 'destructive' });
    } finally {
      setProgress(null);
    }
  };

  const uploading = progress !== null;
  return (
    <Stack spacing={1.5} aria-label={`Upload voucher codes for ${product.name}`} role="group">
      <Box
        component="label"
        htmlFor={inputId}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
        data-testid={`dropzone-${product.id}`}
        sx={{
          display: 'block',
          border: 2,
          borderStyle: 'dashed',
          borderColor: dragging ? 'primary.main' : 'divider',
          bgcolor: dragging ? 'action.hover' : 'transparent',
          borderRadius: 2,
          p: 2,
          textAlign: 'center',
          cursor: 'pointer',
        }}
      >
        <CloudUpload color="action" aria-hidden />
        <Typography variant="body2">{file ? file.name : 'Click or drag a CSV or TXT file here'}</Typography>
        <input
          ref={input}
          id={inputId}
          type="file"
          accept=".csv,.txt,text/csv,text/plain"
          hidden
          aria-label={`Voucher file for ${product.name}`}
          onChange={(e) => choose(e.target.files?.[0])}
        />
      </Box>
      {uploading && (
        <Box>
          <LinearProgress variant="determinate" value={Math.round((progress ?? 0) * 100)} aria-label="Upload progress" />
          <Typography variant="caption" sx={{ color: 'text.secondary' }}>
            Uploading... {Math.round((progress ?? 0) * 100)}%
          </Typography>
        </Box>
      )}
      <Button variant="contained" startIcon={<CloudUpload />} disabled={!file || uploading} onClick={upload}>
        {uploading ? 'Uploading...' : 'Upload Codes'}
      </Button>
      {report && (
        <Alert severity={report.inserted > 0 ? 'success' : 'info'} data-testid="upload-report" onClose={() => setReport(null)}>
          <strong>{report.inserted}</strong> inserted, <strong>{report.duplicates}</strong> duplicate{report.duplicates === 1 ? '' : 's'},{' '}
          <strong>{report.invalid}</strong> invalid
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
