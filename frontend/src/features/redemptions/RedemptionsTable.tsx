import SendIcon from '@mui/icons-material/Send';
import VisibilityIcon from '@mui/icons-material/Visibility';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { StatusChip } from '../../components/status/StatusChip';
import { usePermissions } from '../auth/usePermissions';
import { EmailStatusChip } from './EmailStatusChip';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { erasedOn, formatDateTime } from './formatDate';
import { voucherCodeOf, type AdminRedemption } from './redemptionsApi';
import { isSelectable, type RedemptionList } from './useRedemptionList';

export const EMPTY_RECENT = 'No redemptions found. Redemptions will appear here once customers start redeeming vouchers.';
export const EMPTY_EXPORTED = 'No exported vouchers found. Vouchers will appear here after they have been exported.';

const COLUMNS = 7;

/**
 * The page of redemptions: select boxes (Recent Redemptions only; a redemption with a licence key cannot be
 * selected), code, customer, product, e-mail status, dates and the row actions.
 */
export function RedemptionsTable({
  list,
  onDetails,
  onResend,
  onDelete,
}: {
  list: RedemptionList;
  onDetails: (r: AdminRedemption) => void;
  onResend: (id: string) => void;
  onDelete: (id: string) => void;
}) {
  const { can } = usePermissions();
  const { showExported, rows, selected, data } = list;
  const canSelect = !showExported;
  const canDelete = can('redemptions.delete');
  return (
    <TableContainer component={Paper} variant="outlined">
      {list.isFetching && <LinearProgress aria-label="Loading redemptions" />}
      <Table size="small" aria-label={showExported ? 'Exported vouchers' : 'Recent redemptions'}>
        <TableHead>
          <TableRow>
            {canSelect && (
              <TableCell padding="checkbox">
                <Checkbox
                  slotProps={{ input: { 'aria-label': 'Select all on this page' } }}
                  checked={list.allOnPageSelected}
                  indeterminate={list.someOnPageSelected}
                  disabled={list.noneSelectableOnPage}
                  onChange={list.toggleAllOnPage}
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
              <TableCell colSpan={COLUMNS} align="center" sx={{ py: 6, color: 'text.secondary' }}>
                {showExported ? EMPTY_EXPORTED : EMPTY_RECENT}
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
                      <Checkbox checked={selected.has(r.id)} onChange={() => list.toggle(r.id)} slotProps={{ input: { 'aria-label': `Select ${code}` } }} />
                    ) : (
                      <Tooltip title="A license key is already assigned">
                        <span>
                          <Checkbox disabled slotProps={{ input: { 'aria-label': `Select ${code} (license key already assigned)` } }} />
                        </span>
                      </Tooltip>
                    )}
                  </TableCell>
                )}
                <TableCell>
                  <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
                    {code}
                  </Typography>
                  {r.refundedAt && (
                    <Tooltip title={`Refunded ${formatDateTime(r.refundedAt)}: the customer keeps the licence`}>
                      <span>
                        <StatusChip color="warning" variant="outlined" label="Refunded" />
                      </span>
                    </Tooltip>
                  )}
                </TableCell>
                <TableCell>
                  {r.erasedAt ? (
                    <Typography variant="body2" sx={{ color: 'text.secondary', fontStyle: 'italic' }}>
                      {erasedOn(r.erasedAt)}
                    </Typography>
                  ) : (
                    <>
                      <Typography variant="body2">{`${r.customer.firstName} ${r.customer.lastName}`}</Typography>
                      <Typography variant="caption" sx={{ color: 'text.secondary' }}>
                        {r.customer.email}
                      </Typography>
                    </>
                  )}
                </TableCell>
                <TableCell>{r.product?.name}</TableCell>
                <TableCell>
                  <EmailStatusChip status={r.emailStatus} />
                </TableCell>
                <TableCell>{formatDateTime(r.redeemedAt)}</TableCell>
                {showExported && <TableCell>{r.exportedAt ? formatDateTime(r.exportedAt) : 'Not available'}</TableCell>}
                <TableCell align="right" sx={{ whiteSpace: 'nowrap' }}>
                  <Tooltip title="View details">
                    <IconButton size="small" aria-label={`View details of ${code}`} onClick={() => onDetails(r)}>
                      <VisibilityIcon fontSize="small" />
                    </IconButton>
                  </Tooltip>
                  {can('emails.resend') && (
                    <Tooltip title="Resend email">
                      <IconButton size="small" aria-label={`Resend email for ${code}`} onClick={() => onResend(r.id)}>
                        <SendIcon fontSize="small" />
                      </IconButton>
                    </Tooltip>
                  )}
                  {!showExported && canDelete && (
                    <DeleteButton label={code} onClick={() => onDelete(r.id)} />
                  )}
                </TableCell>
              </TableRow>
            );
          })}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
