import CloudUpload from '@mui/icons-material/CloudUpload';
import Box from '@mui/material/Box';
import Typography from '@mui/material/Typography';
import { useState, type DragEvent, type Ref } from 'react';
import { toast } from '../../components/toast';
import { isAcceptedVoucherFile } from './uploadVoucherFile';

/**
 * A CSV or TXT file by click or drag-and-drop (docs/product.md §3.11 voucher upload control; the void dialog uses it too). Any
 * other file type is refused here with a toast titled `refusedTitle`, and `onFile` gets null.
 */
export function CodeFileDropZone({
  inputId,
  inputRef,
  file,
  label,
  testId,
  refusedTitle,
  onFile,
}: {
  inputId: string;
  inputRef?: Ref<HTMLInputElement>;
  file: File | null;
  /** Accessible name of the hidden file input. */
  label: string;
  testId?: string;
  refusedTitle: string;
  /** A chosen CSV/TXT file, or null when the choice was refused. Not called when nothing was chosen. */
  onFile: (file: File | null) => void;
}) {
  const [dragging, setDragging] = useState(false);
  const choose = (chosen: File | undefined) => {
    if (!chosen) return;
    if (isAcceptedVoucherFile(chosen)) return onFile(chosen);
    toast({ title: refusedTitle, description: 'Only .csv and .txt files are accepted.', variant: 'destructive' });
    onFile(null);
  };
  const onDrop = (e: DragEvent) => {
    e.preventDefault();
    setDragging(false);
    choose(e.dataTransfer.files?.[0]);
  };
  return (
    <Box
      component="label"
      htmlFor={inputId}
      onDragOver={(e) => {
        e.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => setDragging(false)}
      onDrop={onDrop}
      data-testid={testId}
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
        ref={inputRef}
        id={inputId}
        type="file"
        accept=".csv,.txt,text/csv,text/plain"
        hidden
        aria-label={label}
        onChange={(e) => choose(e.target.files?.[0])}
      />
    </Box>
  );
}
