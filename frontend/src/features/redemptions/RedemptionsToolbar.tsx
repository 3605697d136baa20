import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { usePermissions } from '../auth/usePermissions';
import type { EmailStatusFilter } from './redemptionsApi';
import type { RedemptionActions } from './useRedemptionActions';
import type { useRedemptionExports } from './useRedemptionExports';
import type { RedemptionList } from './useRedemptionList';

const STATUS_OPTIONS: { value: EmailStatusFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'sent', label: 'Sent' },
  { value: 'failed', label: 'Failed' },
];

/** docs/product.md §3.17: what each export does to the list, shown under the buttons and as their descriptions. */
export const EXPORT_NOTES = {
  marks: 'Export CSV and Export TXT mark the redemptions they contain as exported: they move to Exported Vouchers.',
  again: 'Export CSV and Export TXT export this list again: its redemptions stay here, Exported At set to now.',
  codes: 'Export Redeemed Codes marks nothing: the redemptions stay in this list.',
  selected: 'Export Selected marks the selected redemptions as exported: they move to Exported Vouchers.',
} as const;

const NOTE_ID = { data: 'export-note-data', codes: 'export-note-codes' } as const;

/** Heading with Fix Pending Emails and the exports, then the search box and the e-mail status filter. */
export function RedemptionsToolbar({
  list,
  actions,
  exports,
}: {
  list: RedemptionList;
  actions: RedemptionActions;
  exports: ReturnType<typeof useRedemptionExports>;
}) {
  const { role, can } = usePermissions();
  const { showExported } = list;
  const exportsCodes = !showExported && can('export.redeemed-vouchers');
  const exportsData = can('export.redeemed-data');
  return (
    <>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { md: 'center' } }}>
        <Typography variant="h2" sx={{ fontSize: '1.25rem', flex: 1 }}>
          {showExported ? 'Exported Vouchers' : 'Recent Redemptions'}
        </Typography>
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
          {!showExported && role === 'admin' && (
            <Button
              variant="outlined"
              color="warning"
              onClick={() => void actions.runFixPending()}
              disabled={actions.fixingPending}
            >
              {actions.fixingPending ? 'Fixing...' : 'Fix Pending Emails'}
            </Button>
          )}
          {exportsCodes && (
            <>
              <Button
                variant="outlined"
                onClick={() => void exports.exportRedeemedCodes('csv')}
                disabled={exports.exporting}
                aria-describedby={NOTE_ID.codes}
              >
                Export Redeemed Codes CSV
              </Button>
              <Button
                variant="outlined"
                onClick={() => void exports.exportRedeemedCodes('txt')}
                disabled={exports.exporting}
                aria-describedby={NOTE_ID.codes}
              >
                Export Redeemed Codes TXT
              </Button>
            </>
          )}
          {exportsData && (
            <>
              <Button
                variant="outlined"
                onClick={() => void exports.exportAll('csv')}
                disabled={exports.exporting}
                aria-describedby={NOTE_ID.data}
              >
                Export CSV
              </Button>
              <Button
                variant="outlined"
                onClick={() => void exports.exportAll('txt')}
                disabled={exports.exporting}
                aria-describedby={NOTE_ID.data}
              >
                Export TXT
              </Button>
            </>
          )}
        </Stack>
      </Stack>
      {(exportsData || exportsCodes) && (
        <Stack sx={{ mt: -1, mb: 2, alignItems: { md: 'flex-end' } }}>
          {exportsData && (
            <Typography id={NOTE_ID.data} variant="caption" sx={{ color: 'text.secondary' }}>
              {showExported ? EXPORT_NOTES.again : EXPORT_NOTES.marks}
            </Typography>
          )}
          {exportsCodes && (
            <Typography id={NOTE_ID.codes} variant="caption" sx={{ color: 'text.secondary' }}>
              {EXPORT_NOTES.codes}
            </Typography>
          )}
        </Stack>
      )}

      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2 }}>
        <TextField
          label="Search"
          placeholder="Voucher code, customer name or email"
          value={list.searchInput}
          onChange={(e) => list.setSearchInput(e.target.value)}
          size="small"
          sx={{ flex: 1 }}
          slotProps={{ htmlInput: { 'aria-label': 'Search redemptions', maxLength: 254 } }}
        />
        <FormControl size="small" sx={{ minWidth: 180 }}>
          <InputLabel id="email-status-label">Email Status</InputLabel>
          <Select
            labelId="email-status-label"
            label="Email Status"
            value={list.emailStatus}
            onChange={(e) => list.setEmailStatus(e.target.value as EmailStatusFilter)}
          >
            {STATUS_OPTIONS.map((o) => (
              <MenuItem key={o.value} value={o.value}>
                {o.label}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
      </Stack>
    </>
  );
}
