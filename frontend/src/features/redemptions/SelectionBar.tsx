import Button from '@mui/material/Button';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { EXPORT_NOTES } from './RedemptionsToolbar';

const SELECTED_NOTE_ID = 'export-note-selected';

interface Props {
  count: number;
  canExport: boolean;
  canDelete: boolean;
  canAssign: boolean;
  busy: boolean;
  onClear: () => void;
  onExport: (format: 'csv' | 'txt') => void;
  onDelete: () => void;
  onAssign: () => void;
}

/** docs/product.md §3.5 selection bar: count, clear selection, Export Selected (CSV/TXT), Delete Selected, Assign Licenses. */
export function SelectionBar({
  count,
  canExport,
  canDelete,
  canAssign,
  busy,
  onClear,
  onExport,
  onDelete,
  onAssign,
}: Props) {
  return (
    <Paper
      role="region"
      aria-label="Selection"
      variant="outlined"
      sx={{
        p: 1.5,
        mb: 2,
        display: 'flex',
        flexWrap: 'wrap',
        gap: 1,
        alignItems: 'center',
        bgcolor: 'primary.50',
        borderColor: 'primary.light',
      }}
    >
      <Typography sx={{ fontWeight: 600, mr: 1 }}>{count} selected</Typography>
      <Button size="small" onClick={onClear}>
        Clear Selection
      </Button>
      <Stack direction="row" spacing={1} sx={{ ml: 'auto', flexWrap: 'wrap', rowGap: 1 }}>
        {canExport && (
          <>
            <Button
              size="small"
              variant="outlined"
              disabled={busy}
              onClick={() => onExport('csv')}
              aria-describedby={SELECTED_NOTE_ID}
            >
              Export Selected CSV
            </Button>
            <Button
              size="small"
              variant="outlined"
              disabled={busy}
              onClick={() => onExport('txt')}
              aria-describedby={SELECTED_NOTE_ID}
            >
              Export Selected TXT
            </Button>
          </>
        )}
        {canAssign && (
          <Button size="small" variant="contained" disabled={busy} onClick={onAssign}>
            Assign Licenses
          </Button>
        )}
        {canDelete && (
          <Button size="small" variant="contained" color="error" disabled={busy} onClick={onDelete}>
            Delete Selected
          </Button>
        )}
      </Stack>
      {canExport && (
        <Typography id={SELECTED_NOTE_ID} variant="caption" sx={{ width: '100%', color: 'text.secondary' }}>
          {EXPORT_NOTES.selected}
        </Typography>
      )}
    </Paper>
  );
}
