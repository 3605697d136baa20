import SendIcon from '@mui/icons-material/Send';
import VisibilityIcon from '@mui/icons-material/Visibility';
import Button from '@mui/material/Button';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import Stack from '@mui/material/Stack';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { ListTable, type ListColumn } from '../../components/list/ListTable';
import { aboutText } from '../../components/pagination/pageItems';
import { StatusChip } from '../../components/status/StatusChip';
import { usePermissions } from '../auth/usePermissions';
import { EmailStatusChip } from './EmailStatusChip';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { erasedOn, formatDateTime } from './formatDate';
import { voucherCodeOf, type AdminRedemption } from './redemptionsApi';
import type { RedemptionList } from './useRedemptionList';

export const EMPTY_RECENT =
  'No redemptions found. Redemptions will appear here once customers start redeeming vouchers.';
export const EMPTY_EXPORTED = 'No exported vouchers found. Vouchers will appear here after they have been exported.';

/**
 * docs/product.md §3.17: Recent Redemptions empty only because its redemptions were exported says so, and leads to
 * Exported Vouchers; the spec's empty text stays for a list with nothing to show anywhere.
 */
export function exportedHintText(count: string, filtered: boolean): string {
  const where = 'Exported redemptions are listed in Exported Vouchers.';
  if (!filtered) return `No redemptions waiting for export: all have been exported (${count}). ${where}`;
  const found = count === '1' ? '1 exported redemption does' : `${count} exported redemptions do`;
  return `No redemptions waiting for export match this search or filter; ${found}. ${where}`;
}

function ExportedHint({ list, onOpenExported }: { list: RedemptionList; onOpenExported: () => void }) {
  const exported = list.exportedElsewhere!;
  const count = exported.totalCountExact === false ? aboutText(exported.totalCount) : String(exported.totalCount);
  const filtered = list.search !== '' || list.emailStatus !== 'all';
  return (
    <Stack spacing={1.5} sx={{ alignItems: 'center' }} role="status">
      <Typography variant="body2">{exportedHintText(count, filtered)}</Typography>
      <Button variant="outlined" size="small" onClick={onOpenExported}>
        Open Exported Vouchers
      </Button>
    </Stack>
  );
}

/**
 * The page of redemptions (`ListTable`): select boxes (Recent Redemptions only; a redemption with a licence key cannot
 * be selected), code, customer, product, e-mail status, dates and the row actions.
 */
export function RedemptionsTable({
  list,
  onDetails,
  onResend,
  onDelete,
  onOpenExported,
}: {
  list: RedemptionList;
  onDetails: (r: AdminRedemption) => void;
  onResend: (id: string) => void;
  onDelete: (id: string) => void;
  /** Switches the dashboard to Exported Vouchers (the empty Recent Redemptions list's hint). */
  onOpenExported?: () => void;
}) {
  const { can } = usePermissions();
  const { showExported, rows, data } = list;
  const canDelete = can('redemptions.delete');
  const columns: Array<ListColumn<AdminRedemption>> = [
    {
      key: 'code',
      header: 'Voucher Code',
      render: (r) => (
        <>
          <Typography variant="body2" sx={{ fontFamily: 'monospace' }}>
            {voucherCodeOf(r)}
          </Typography>
          {r.refundedAt && (
            <Tooltip title={`Refunded ${formatDateTime(r.refundedAt)}: the customer keeps the licence`}>
              <span>
                <StatusChip color="warning" variant="outlined" label="Refunded" />
              </span>
            </Tooltip>
          )}
          {r.heldForReview && (
            <Tooltip title="A risk rule held it: no key until staff approve it in the Review tab">
              <span>
                <StatusChip color="warning" label="Held for review" />
              </span>
            </Tooltip>
          )}
        </>
      ),
    },
    {
      key: 'customer',
      header: 'Customer',
      render: (r) =>
        r.erasedAt ? (
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
        ),
    },
    { key: 'product', header: 'Product', render: (r) => r.product?.name },
    { key: 'email', header: 'Email Status', render: (r) => <EmailStatusChip status={r.emailStatus} /> },
    { key: 'redeemed', header: 'Redeemed At', render: (r) => formatDateTime(r.redeemedAt) },
    ...(showExported
      ? [
          {
            key: 'exported',
            header: 'Exported At',
            render: (r: AdminRedemption) => (r.exportedAt ? formatDateTime(r.exportedAt) : 'Not available'),
          },
        ]
      : []),
    {
      key: 'actions',
      header: 'Actions',
      align: 'right',
      sx: { whiteSpace: 'nowrap' },
      render: (r) => {
        const code = voucherCodeOf(r);
        return (
          <>
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
            {!showExported && canDelete && <DeleteButton label={code} onClick={() => onDelete(r.id)} />}
          </>
        );
      },
    },
  ];
  return (
    <ListTable
      label={showExported ? 'Exported vouchers' : 'Recent redemptions'}
      outlined
      loading={list.isFetching || list.checkingExported}
      loadingLabel="Loading redemptions"
      rows={rows}
      columns={columns}
      empty={
        data && rows.length === 0 && !list.checkingExported ? (
          showExported ? (
            EMPTY_EXPORTED
          ) : list.exportedElsewhere && onOpenExported ? (
            <ExportedHint list={list} onOpenExported={onOpenExported} />
          ) : (
            EMPTY_RECENT
          )
        ) : undefined
      }
      selection={
        showExported
          ? undefined
          : {
              ...list,
              selectAllLabel: 'Select all on this page',
              rowLabel: (r) => `Select ${voucherCodeOf(r)}`,
              notSelectable: (r) => (
                <Tooltip title="A license key is already assigned">
                  <span>
                    <Checkbox
                      disabled
                      slotProps={{
                        input: { 'aria-label': `Select ${voucherCodeOf(r)} (license key already assigned)` },
                      }}
                    />
                  </span>
                </Tooltip>
              ),
            }
      }
    />
  );
}
