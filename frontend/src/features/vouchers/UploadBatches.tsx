import Download from '@mui/icons-material/Download';
import Alert from '@mui/material/Alert';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useId, useState } from 'react';
import { toast } from '../../components/toast';
import { StatusChip } from '../../components/status/StatusChip';
import { bodyMessage } from '../../utils/httpError';
import { downloadFile, today } from '../admin/download';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { formatDate } from './VoucherCodesTable';
import { type UploadBatch } from './vouchersApi';
import { useVoucherControllerListBatchesQuery } from '../../api';

const COUNT_COLUMNS = [
  ['uploaded', 'Uploaded'],
  ['redeemed', 'Redeemed'],
  ['unredeemed', 'Unredeemed'],
  ['void', 'Void'],
  ['exported', 'Exported'],
] as const;

const plural = (n: number, one: string, many = `${one}s`) => `${n.toLocaleString('en-US')} ${n === 1 ? one : many}`;

/** The file's name and what its load reported, as the batch row keeps it. */
function batchName(b: UploadBatch): string {
  return b.kind === 'before-batches' ? 'Before batches' : (b.fileName ?? '—');
}

function loadReport(b: UploadBatch): string {
  if (b.kind === 'before-batches') return 'Codes that came by no upload';
  // docs/product.md §20.6: an upload that failed after its load began, with its reason; it added nothing.
  if (b.failure) return b.failure;
  if (b.kind === 'void') {
    const parts = [`${plural(b.inserted, 'code')} voided`];
    if (b.refunded) parts.push(`${b.refunded.toLocaleString('en-US')} refunded after redemption`);
    if (b.duplicates) parts.push(`${b.duplicates.toLocaleString('en-US')} already void`);
    if (b.unknown) parts.push(`${b.unknown.toLocaleString('en-US')} unknown`);
    if (b.invalid) parts.push(plural(b.invalid, 'invalid line'));
    return parts.join(', ');
  }
  const parts = [`${b.inserted.toLocaleString('en-US')} added`];
  if (b.duplicates) parts.push(plural(b.duplicates, 'duplicate'));
  if (b.invalid) parts.push(plural(b.invalid, 'invalid line'));
  return parts.join(', ');
}

/**
 * docs/product.md §20.1: the product's upload batches (uploads, void files, the codes from before batches) with their live
 * counts, newest first, and each one's reconciliation CSV. Needs vouchers.view; the download also needs both code
 * exports' permissions (the file holds unredeemed codes). Refreshed with every change of codes or redemptions.
 */
export function UploadBatches({ productId }: { productId: string }) {
  const { can } = usePermissions();
  const allowed = can(PERMISSIONS.vouchersView);
  const canDownload = allowed && can(PERMISSIONS.exportUnredeemedVouchers) && can(PERMISSIONS.exportRedeemedVouchers);
  const batches = useVoucherControllerListBatchesQuery(productId, { skip: !allowed });
  const [downloading, setDownloading] = useState<string | null>(null);
  const titleId = useId();
  if (!allowed) return null;

  const download = async (b: UploadBatch) => {
    setDownloading(b.id);
    try {
      await downloadFile(`/api/export/batch/${encodeURIComponent(b.id)}?format=csv`, undefined, `batch-${today()}.csv`);
      toast({
        title: 'Export Successful',
        description: `The reconciliation of ${batchName(b)} has been downloaded.`,
        variant: 'success',
      });
    } catch (err) {
      toast({
        title: 'Export Failed',
        description: (err as Error).message || 'Failed to download the batch.',
        variant: 'destructive',
      });
    } finally {
      setDownloading(null);
    }
  };

  const rows = batches.data ?? [];
  return (
    <Paper variant="outlined" sx={{ p: 2 }} component="section" aria-labelledby={titleId}>
      <Stack spacing={1.5}>
        <Typography variant="h2" id={titleId} sx={{ fontSize: '1.25rem' }}>
          Batches
        </Typography>
        {batches.isFetching && <LinearProgress aria-label="Loading batches" />}
        {batches.isError ? (
          <Alert severity="error">{bodyMessage(batches.error) ?? 'Failed to load the batches.'}</Alert>
        ) : batches.isSuccess && rows.length === 0 ? (
          <Typography sx={{ color: 'text.secondary' }}>
            No batches yet: every upload and every void file appears here.
          </Typography>
        ) : (
          <TableContainer>
            <Table size="small" aria-labelledby={titleId}>
              <TableHead>
                <TableRow>
                  <TableCell component="th" scope="col">
                    File
                  </TableCell>
                  <TableCell component="th" scope="col">
                    Uploaded By
                  </TableCell>
                  <TableCell component="th" scope="col">
                    Uploaded At
                  </TableCell>
                  {COUNT_COLUMNS.map(([key, label]) => (
                    <TableCell key={key} component="th" scope="col" align="right">
                      {label}
                    </TableCell>
                  ))}
                  {canDownload && (
                    <TableCell component="th" scope="col" align="right">
                      Reconciliation
                    </TableCell>
                  )}
                </TableRow>
              </TableHead>
              <TableBody>
                {rows.map((b) => (
                  <TableRow key={b.id} data-testid={`batch-${b.id}`}>
                    <TableCell component="th" scope="row">
                      <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                        <span>{batchName(b)}</span>
                        {b.kind === 'void' && <StatusChip color="error" variant="outlined" label="Void file" />}
                        {b.failure && <StatusChip color="error" label="Failed" />}
                      </Stack>
                      <Typography variant="caption" component="div" sx={{ color: 'text.secondary' }}>
                        {loadReport(b)}
                      </Typography>
                    </TableCell>
                    <TableCell>{b.uploadedBy ?? '—'}</TableCell>
                    <TableCell>{formatDate(b.uploadedAt)}</TableCell>
                    {COUNT_COLUMNS.map(([key]) => (
                      <TableCell key={key} align="right">
                        {b.counts ? b.counts[key].toLocaleString('en-US') : '—'}
                      </TableCell>
                    ))}
                    {canDownload && (
                      <TableCell align="right">
                        <Tooltip title="Download CSV">
                          <span>
                            <IconButton
                              aria-label={`Download the reconciliation CSV of ${batchName(b)}`}
                              onClick={() => void download(b)}
                              disabled={downloading !== null}
                              size="small"
                            >
                              <Download fontSize="small" />
                            </IconButton>
                          </span>
                        </Tooltip>
                      </TableCell>
                    )}
                  </TableRow>
                ))}
              </TableBody>
            </Table>
          </TableContainer>
        )}
      </Stack>
    </Paper>
  );
}
