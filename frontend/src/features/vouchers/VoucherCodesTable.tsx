import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { ListTable } from '../../components/list/ListTable';
import { StatusChip } from '../../components/status/StatusChip';
import { erasedOn } from '../redemptions/formatDate';
import type { VoucherCodeList } from './useVoucherCodeList';
import { isAvailable, type VoucherCode } from './vouchersApi';

export const formatDate = (value: string | null | undefined) => (value ? new Date(value).toLocaleString('en-US') : '—');

/**
 * The redemption's customer; "Erased on <date>" once they erased their data, as the redemption list shows it
 * (docs/product.md §21.3).
 */
function Customer({ code }: { code: VoucherCode }) {
  const customer = code.redemption?.customer;
  if (!customer) return <>—</>;
  if (code.redemption?.erasedAt) {
    return (
      <Typography variant="body2" component="span" sx={{ color: 'text.secondary', fontStyle: 'italic' }}>
        {erasedOn(code.redemption.erasedAt)}
      </Typography>
    );
  }
  return (
    <>
      {customer.firstName} {customer.lastName}
      <Typography variant="caption" component="div" sx={{ color: 'text.secondary' }}>
        {customer.email}
      </Typography>
    </>
  );
}

export const EMPTY_MESSAGES = {
  all: 'No voucher codes found',
  unredeemed: 'No unredeemed codes found',
  redeemed: 'No redeemed voucher codes found',
  void: 'No void codes found',
} as const;

type Column =
  'select' | 'code' | 'status' | 'created' | 'customer' | 'redeemedBy' | 'redeemedAt' | 'voidedAt' | 'actions';

const HEADERS: Record<Column, string> = {
  select: '',
  code: 'Voucher Code',
  status: 'Status',
  created: 'Created Date',
  customer: 'Customer',
  redeemedBy: 'Redeemed By',
  redeemedAt: 'Redemption Date',
  voidedAt: 'Voided Date',
  actions: 'Actions',
};

/** Available, Redeemed (with "Refunded" when refunded after redemption) or Void (docs/product.md §19.3). */
function CodeStatus({ code }: { code: VoucherCode }) {
  if (code.status === 'void') return <StatusChip color="error" variant="outlined" label="Void" />;
  if (!code.isRedeemed) return <StatusChip color="success" label="Available" />;
  return (
    <Stack direction="row" spacing={0.5}>
      <StatusChip color="default" label="Redeemed" />
      {code.redemption?.refundedAt && <StatusChip color="warning" variant="outlined" label="Refunded" />}
    </Stack>
  );
}

/**
 * The codes table of the voucher page and modal (`ListTable`). `columns` follows docs/product.md §3.12 per variant and tab (and the
 * Void tab); the checkbox shows only for available codes; delete only for available codes and when permitted.
 */
export function VoucherCodesTable({
  list,
  columns,
  canDelete,
  onDelete,
}: {
  list: VoucherCodeList;
  columns: Column[];
  canDelete: boolean;
  onDelete: (code: VoucherCode) => void;
}) {
  const render: Record<Exclude<Column, 'select'>, (code: VoucherCode) => ReactNode> = {
    code: (code) => code.code,
    status: (code) => <CodeStatus code={code} />,
    created: (code) => formatDate(code.createdAt),
    customer: (code) => <Customer code={code} />,
    redeemedBy: (code) => <Customer code={code} />,
    redeemedAt: (code) => formatDate(code.redemption?.redeemedAt ?? code.redeemedAt),
    voidedAt: (code) => formatDate(code.voidedAt),
    actions: (code) =>
      isAvailable(code) && <DeleteButton label={code.code} onClick={() => onDelete(code)} disabled={list.deleting} />,
  };
  const shown = columns.filter((c): c is Exclude<Column, 'select'> => c !== 'select' && (c !== 'actions' || canDelete));
  const empty = list.query.isError ? 'Voucher codes could not be loaded.' : EMPTY_MESSAGES[list.tab];
  return (
    <ListTable
      label="Voucher codes"
      rows={list.codes}
      columns={shown.map((c) => ({
        key: c,
        header: HEADERS[c],
        sx: c === 'code' ? { fontFamily: 'monospace' } : undefined,
        render: render[c],
      }))}
      empty={list.codes.length === 0 && !list.query.isFetching ? empty : undefined}
      selection={
        columns.includes('select') && canDelete
          ? {
              ...list,
              selectAllLabel: 'Select all unredeemed codes on this page',
              rowLabel: (code) => `Select ${code.code}`,
            }
          : undefined
      }
    />
  );
}
