import DeleteIcon from '@mui/icons-material/Delete';
import SendIcon from '@mui/icons-material/Send';
import VisibilityIcon from '@mui/icons-material/Visibility';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import FormControl from '@mui/material/FormControl';
import IconButton from '@mui/material/IconButton';
import InputLabel from '@mui/material/InputLabel';
import LinearProgress from '@mui/material/LinearProgress';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useEffect, useMemo, useState } from 'react';
import { api } from '../../app/api';
import { useAppDispatch } from '../../app/store';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { showingText } from '../../components/pagination/pageItems';
import { Paginator } from '../../components/pagination/Paginator';
import { toast } from '../../components/toast';
import { downloadFile, today } from '../admin/download';
import { usePermissions } from '../auth/usePermissions';
import { BulkAssignDialog } from './BulkAssignDialog';
import { EmailStatusChip } from './EmailStatusChip';
import { errorText } from './errors';
import { formatDateTime } from './formatDate';
import { RedemptionDetailsDialog } from './RedemptionDetailsDialog';
import { SelectionBar } from './SelectionBar';
import {
  redemptionListParams,
  useBulkAssignLicenseMutation,
  useBulkDeleteRedemptionsMutation,
  useDeleteRedemptionMutation,
  useFixPendingEmailsMutation,
  useGetRedemptionsQuery,
  useResendEmailMutation,
  voucherCodeOf,
  type AdminRedemption,
  type EmailStatusFilter,
} from './redemptionsApi';
import { useDebouncedValue } from './useDebouncedValue';

/** SPEC §5 bulk delete confirmation. */
export const deleteConfirmation = (n: number) => `Are you sure you want to delete ${n} redemption(s)? This action cannot be undone.`;

/** SPEC §9: redemptions page size. */
export const REDEMPTIONS_PAGE_SIZE = 50;
/**
 * A manual or Mac redemption is announced only as `voucherUpdate` (SPEC §4: products and stats), so the list
 * also follows new redemptions the way the stat cards do (SPEC §9: every 10 s).
 */
export const REDEMPTIONS_POLL_MS = 10_000;

export const EMPTY_RECENT = 'No redemptions found. Redemptions will appear here once customers start redeeming vouchers.';
export const EMPTY_EXPORTED = 'No exported vouchers found. Vouchers will appear here after they have been exported.';

const STATUS_OPTIONS: { value: EmailStatusFilter; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'pending', label: 'Pending' },
  { value: 'sent', label: 'Sent' },
  { value: 'failed', label: 'Failed' },
];

/** A redemption that already has a licence key cannot be selected for bulk actions (SPEC §2). */
export const isSelectable = (r: AdminRedemption) => !r.assignedLicenseKey;

type Format = 'csv' | 'txt';

/**
 * Recent Redemptions (`showExported` false) and Exported Vouchers (true). The dashboard remounts it on tab
 * change (`key`), which resets page, filter and search (SPEC §2).
 */
export function RedemptionsTab({ showExported }: { showExported: boolean }) {
  const dispatch = useAppDispatch();
  const { role, can } = usePermissions();
  const [page, setPage] = useState(1);
  const [emailStatus, setEmailStatus] = useState<EmailStatusFilter>('all');
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput).trim();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [details, setDetails] = useState<AdminRedemption | null>(null);
  const [toDelete, setToDelete] = useState<{ ids: string[]; bulk: boolean } | null>(null);
  const [assigning, setAssigning] = useState(false);
  const [exporting, setExporting] = useState(false);

  const { data, isFetching, error } = useGetRedemptionsQuery(
    { page, limit: REDEMPTIONS_PAGE_SIZE, emailStatus, showExported, search },
    { pollingInterval: REDEMPTIONS_POLL_MS },
  );
  const [resend] = useResendEmailMutation();
  const [deleteOne, deleteOneState] = useDeleteRedemptionMutation();
  const [deleteMany, deleteManyState] = useBulkDeleteRedemptionsMutation();
  const [bulkAssign, bulkAssignState] = useBulkAssignLicenseMutation();
  const [fixPending, fixPendingState] = useFixPendingEmailsMutation();

  // A new search or filter starts again on page 1 with nothing selected.
  useEffect(() => {
    setPage(1);
    setSelected(new Set());
  }, [search, emailStatus]);

  // After deletes the last page may be gone.
  const totalPages = data?.pagination.totalPages ?? 0;
  useEffect(() => {
    if (totalPages > 0 && page > totalPages) setPage(totalPages);
  }, [page, totalPages]);

  const rows = useMemo(() => data?.redemptions ?? [], [data]);

  // A selected redemption that received a key meanwhile (another admin, Fix Pending Emails) is no longer selectable.
  useEffect(() => {
    const taken = rows.filter((r) => !isSelectable(r)).map((r) => r.id);
    setSelected((prev) => (taken.some((id) => prev.has(id)) ? new Set([...prev].filter((id) => !taken.includes(id))) : prev));
  }, [rows]);
  const selectableOnPage = rows.filter(isSelectable);
  const selectedOnPage = selectableOnPage.filter((r) => selected.has(r.id));
  const canSelect = !showExported;
  const canDelete = can('redemptions.delete');
  const ids = [...selected];

  function toggle(id: string) {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  function toggleAllOnPage() {
    setSelected((prev) => {
      const next = new Set(prev);
      const all = selectableOnPage.length > 0 && selectableOnPage.every((r) => next.has(r.id));
      for (const r of selectableOnPage) {
        if (all) next.delete(r.id);
        else next.add(r.id);
      }
      return next;
    });
  }

  async function resendEmail(id: string) {
    try {
      await resend(id).unwrap();
      toast({ title: 'Email sent successfully', variant: 'success' });
    } catch (err) {
      toast({ title: 'Failed to Send Email', description: errorText(err, 'There was an error sending the email. Please try again.'), variant: 'destructive' });
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    const { ids: targets, bulk } = toDelete;
    try {
      if (bulk) {
        const { deletedCount } = await deleteMany(targets).unwrap();
        toast({ title: 'Redemptions deleted', description: `${deletedCount} redemption(s) deleted.`, variant: 'success' });
        setSelected(new Set());
      } else {
        await deleteOne(targets[0]).unwrap();
        setSelected((prev) => new Set([...prev].filter((id) => id !== targets[0])));
        toast({ title: 'Redemption deleted', variant: 'success' });
      }
    } catch (err) {
      toast({ title: bulk ? 'Bulk delete failed' : 'Failed to delete redemption', description: errorText(err, 'Please try again.'), variant: 'destructive' });
    } finally {
      setToDelete(null);
    }
  }

  async function assignToSelected(values: { licenseKey: string; downloadLink: string }) {
    try {
      const { successCount } = await bulkAssign({ redemptionIds: ids, ...values }).unwrap();
      toast({ title: 'License assigned successfully', description: `Assigned to ${successCount} redemption(s).`, variant: 'success' });
      setSelected(new Set());
      setAssigning(false);
    } catch (err) {
      toast({ title: 'Failed to assign licenses to selected redemptions', description: errorText(err, 'Please try again.'), variant: 'destructive' });
    }
  }

  async function runFixPending() {
    try {
      const { fixedCount, assignedCount } = await fixPending().unwrap();
      toast({ title: 'Pending emails fixed', description: `${fixedCount} email(s) queued, ${assignedCount} license(s) assigned.`, variant: 'success' });
    } catch (err) {
      toast({ title: 'Failed to fix pending emails', description: errorText(err, 'Please try again.'), variant: 'destructive' });
    }
  }

  /**
   * Exports mark redemptions exported on the server: the lists are read again afterwards. An expired access
   * token is renewed once by `downloadFile` (`authorizedFetch`), the way every admin request does.
   */
  async function exportFile(run: () => Promise<void>, failureTitle: string, afterwards?: () => void) {
    setExporting(true);
    try {
      await run();
      toast({ title: 'Export Successful', variant: 'success' });
      afterwards?.();
    } catch (err) {
      toast({ title: failureTitle, description: errorText(err, 'Export failed'), variant: 'destructive' });
    } finally {
      setExporting(false);
      dispatch(api.util.invalidateTags([{ type: 'Redemptions', id: 'LIST' }, 'Stats']));
    }
  }

  const exportSelected = (format: Format) =>
    exportFile(
      () =>
        downloadFile('/api/export/selected-redemptions', { method: 'POST', body: JSON.stringify({ redemptionIds: ids, format }) }, `selected-redemptions-${today()}.${format}`),
      'Bulk export failed',
      () => setSelected(new Set()),
    );

  const exportAll = (format: Format) =>
    exportFile(() => {
      const params = new URLSearchParams({ format, ...redemptionListParams({ emailStatus, showExported, search }) });
      if (!showExported) params.delete('showExported');
      return downloadFile(`/api/export/redeemed-vouchers?${params}`, undefined, `redeemed-vouchers-${today()}.${format}`);
    }, 'Export failed');

  const exportRedeemedCodes = (format: Format) =>
    exportFile(() => downloadFile(`/api/export/redeemed-voucher-codes?format=${format}`, undefined, `redeemed-voucher-codes-${today()}.${format}`), 'Export failed');

  const columns = 7;
  const empty = showExported ? EMPTY_EXPORTED : EMPTY_RECENT;

  return (
    <Box>
      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { md: 'center' } }}>
        <Typography variant="h2" sx={{ fontSize: '1.25rem', flex: 1 }}>
          {showExported ? 'Exported Vouchers' : 'Recent Redemptions'}
        </Typography>
        <Stack direction="row" spacing={1} sx={{ flexWrap: 'wrap', rowGap: 1 }}>
          {!showExported && role === 'admin' && (
            <Button variant="outlined" color="warning" onClick={() => void runFixPending()} disabled={fixPendingState.isLoading}>
              {fixPendingState.isLoading ? 'Fixing...' : 'Fix Pending Emails'}
            </Button>
          )}
          {!showExported && can('export.redeemed-vouchers') && (
            <Button variant="outlined" onClick={() => void exportRedeemedCodes('csv')} disabled={exporting}>
              Export Redeemed Codes
            </Button>
          )}
          {can('export.redeemed-data') && (
            <>
              <Button variant="outlined" onClick={() => void exportAll('csv')} disabled={exporting}>
                Export CSV
              </Button>
              <Button variant="outlined" onClick={() => void exportAll('txt')} disabled={exporting}>
                Export TXT
              </Button>
            </>
          )}
        </Stack>
      </Stack>

      <Stack direction={{ xs: 'column', sm: 'row' }} spacing={2} sx={{ mb: 2 }}>
        <TextField
          label="Search"
          placeholder="Voucher code, customer name or email"
          value={searchInput}
          onChange={(e) => setSearchInput(e.target.value)}
          size="small"
          sx={{ flex: 1 }}
          slotProps={{ htmlInput: { 'aria-label': 'Search redemptions', maxLength: 254 } }}
        />
        <FormControl size="small" sx={{ minWidth: 180 }}>
          <InputLabel id="email-status-label">Email Status</InputLabel>
          <Select labelId="email-status-label" label="Email Status" value={emailStatus} onChange={(e) => setEmailStatus(e.target.value as EmailStatusFilter)}>
            {STATUS_OPTIONS.map((o) => (
              <MenuItem key={o.value} value={o.value}>
                {o.label}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
      </Stack>

      {canSelect && selected.size > 0 && (
        <SelectionBar
          count={selected.size}
          canExport={can('export.redeemed-vouchers')}
          canDelete={canDelete}
          canAssign={can('licenses.assign')}
          busy={exporting || deleteManyState.isLoading || bulkAssignState.isLoading}
          onClear={() => setSelected(new Set())}
          onExport={(format) => void exportSelected(format)}
          onDelete={() => setToDelete({ ids, bulk: true })}
          onAssign={() => setAssigning(true)}
        />
      )}

      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(error, 'Failed to load redemptions.')}
        </Alert>
      )}

      <TableContainer component={Paper} variant="outlined">
        {isFetching && <LinearProgress aria-label="Loading redemptions" />}
        <Table size="small" aria-label={showExported ? 'Exported vouchers' : 'Recent redemptions'}>
          <TableHead>
            <TableRow>
              {canSelect && (
                <TableCell padding="checkbox">
                  <Checkbox
                    slotProps={{ input: { 'aria-label': 'Select all on this page' } }}
                    checked={selectableOnPage.length > 0 && selectedOnPage.length === selectableOnPage.length}
                    indeterminate={selectedOnPage.length > 0 && selectedOnPage.length < selectableOnPage.length}
                    disabled={selectableOnPage.length === 0}
                    onChange={toggleAllOnPage}
                  />
                </TableCell>
              )}
              <TableCell>Voucher Code</TableCell>
              <TableCell>Customer</TableCell>
              <TableCell>Product</TableCell>
              <TableCell>Email Status</TableCell>
              <TableCell>Redeemed At</TableCell>
              {showExported && <TableCell>Exported At</TableCell>}
              <TableCell align="right">Actions</TableCell>
            </TableRow>
          </TableHead>
          <TableBody>
            {data && rows.length === 0 && (
              <TableRow>
                <TableCell colSpan={columns} align="center" sx={{ py: 6, color: 'text.secondary' }}>
                  {empty}
                </TableCell>
              </TableRow>
            )}
            {rows.map((r) => {
              const code = voucherCodeOf(r);
              return (
                <TableRow key={r.id} hover selected={selected.has(r.id)}>
                  {canSelect && (
                    <TableCell padding="checkbox">
                      {isSelectable(r) ? (
                        <Checkbox checked={selected.has(r.id)} onChange={() => toggle(r.id)} slotProps={{ input: { 'aria-label': `Select ${code}` } }} />
                      ) : (
                        <Tooltip title="A license key is already assigned">
                          <span>
                            <Checkbox disabled slotProps={{ input: { 'aria-label': `Select ${code} (license key already assigned)` } }} />
                          </span>
                        </Tooltip>
                      )}
                    </TableCell>
                  )}
                  <TableCell sx={{ fontFamily: 'monospace' }}>{code}</TableCell>
                  <TableCell>
                    <Typography variant="body2">{`${r.customer.firstName} ${r.customer.lastName}`}</Typography>
                    <Typography variant="caption" sx={{ color: 'text.secondary' }}>
                      {r.customer.email}
                    </Typography>
                  </TableCell>
                  <TableCell>{r.product?.name}</TableCell>
                  <TableCell>
                    <EmailStatusChip status={r.emailStatus} />
                  </TableCell>
                  <TableCell>{formatDateTime(r.redeemedAt)}</TableCell>
                  {showExported && <TableCell>{r.exportedAt ? formatDateTime(r.exportedAt) : 'Not available'}</TableCell>}
                  <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                    <Tooltip title="View details">
                      <IconButton size="small" aria-label={`View details of ${code}`} onClick={() => setDetails(r)}>
                        <VisibilityIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                    {can('emails.resend') && (
                      <Tooltip title="Resend email">
                        <IconButton size="small" aria-label={`Resend email for ${code}`} onClick={() => void resendEmail(r.id)}>
                          <SendIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                    {!showExported && canDelete && (
                      <Tooltip title="Delete">
                        <IconButton size="small" color="error" aria-label={`Delete ${code}`} onClick={() => setToDelete({ ids: [r.id], bulk: false })}>
                          <DeleteIcon fontSize="small" />
                        </IconButton>
                      </Tooltip>
                    )}
                  </TableCell>
                </TableRow>
              );
            })}
          </TableBody>
        </Table>
      </TableContainer>

      {data && data.pagination.totalCount > 0 && (
        <Paginator
          pages={showExported ? 'count' : 'window'}
          page={data.pagination.currentPage}
          totalPages={data.pagination.totalPages}
          onPage={setPage}
          summary={showExported ? undefined : showingText(data.pagination)}
          sx={showExported ? { justifyContent: 'center', mt: 2 } : { mt: 2 }}
        />
      )}

      {details && <RedemptionDetailsDialog redemption={details} onClose={() => setDetails(null)} />}
      {assigning && <BulkAssignDialog count={selected.size} busy={bulkAssignState.isLoading} onSubmit={(v) => void assignToSelected(v)} onClose={() => setAssigning(false)} />}
      <ConfirmDialog
        open={toDelete !== null}
        title={toDelete?.bulk ? 'Delete Selected' : 'Delete Redemption'}
        confirmLabel="Delete"
        busy={deleteOneState.isLoading || deleteManyState.isLoading}
        onConfirm={() => void confirmDelete()}
        onClose={() => setToDelete(null)}
      >
        {deleteConfirmation(toDelete?.ids.length ?? 0)}
      </ConfirmDialog>
    </Box>
  );
}

export default RedemptionsTab;
