import Checkbox from '@mui/material/Checkbox';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { StatusChip } from '../../components/status/StatusChip';
import type { VoucherCodeList } from './useVoucherCodeList';
import { isAvailable, type VoucherCode } from './vouchersApi';

export const formatDate = (value: string | null | undefined) => (value ? new Date(value).toLocaleString('en-US') : '—');

function Customer({ code }: { code: VoucherCode }) {
  const customer = code.redemption?.customer;
  if (!customer) return <>—</>;
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

type Column = 'select' | 'code' | 'status' | 'created' | 'customer' | 'redeemedBy' | 'redeemedAt' | 'voidedAt' | 'actions';

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
 * The codes table of the voucher page and modal. `columns` follows docs/product.md §3.12 per variant and tab (and the Void
 * tab); the checkbox shows only for available codes; delete only for available codes and when permitted.
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
  const cols = columns.filter((c) => (c === 'select' || c === 'actions' ? canDelete : true));
  const selectable = list.codes.some(isAvailable);
  return (
    <TableContainer>
      <Table size="small" aria-label="Voucher codes">
        <TableHead>
          <TableRow>
            {cols.map((c) =>
              c === 'select' ? (
                <TableCell key={c} padding="checkbox">
                  <Checkbox
                    slotProps={{ input: { 'aria-label': 'Select all unredeemed codes on this page' } }}
                    checked={list.allOnPageSelected}
                    indeterminate={list.someOnPageSelected && !list.allOnPageSelected}
                    disabled={!selectable}
                    onChange={list.toggleAllOnPage}
                  />
                </TableCell>
              ) : (
                <TableCell key={c}>{HEADERS[c]}</TableCell>
              ),
            )}
          </TableRow>
        </TableHead>
        <TableBody>
          {list.codes.length === 0 && !list.query.isFetching && (
            <TableRow>
              <TableCell colSpan={cols.length} align="center" sx={{ py: 4, color: 'text.secondary' }}>
                {list.query.isError ? 'Voucher codes could not be loaded.' : EMPTY_MESSAGES[list.tab]}
              </TableCell>
            </TableRow>
          )}
          {list.codes.map((code) => (
            <TableRow key={code.id} hover selected={list.selected.has(code.id)}>
              {cols.map((c) => {
                switch (c) {
                  case 'select':
                    return (
                      <TableCell key={c} padding="checkbox">
                        {isAvailable(code) && (
                          <Checkbox
                            slotProps={{ input: { 'aria-label': `Select ${code.code}` } }}
                            checked={list.selected.has(code.id)}
                            onChange={() => list.toggle(code.id)}
                          />
                        )}
                      </TableCell>
                    );
                  case 'code':
                    return (
                      <TableCell key={c} sx={{ fontFamily: 'monospace' }}>
                        {code.code}
                      </TableCell>
                    );
                  case 'status':
                    return (
                      <TableCell key={c}>
                        <CodeStatus code={code} />
                      </TableCell>
                    );
                  case 'created':
                    return <TableCell key={c}>{formatDate(code.createdAt)}</TableCell>;
                  case 'customer':
                  case 'redeemedBy':
                    return (
                      <TableCell key={c}>
                        <Customer code={code} />
                      </TableCell>
                    );
                  case 'redeemedAt':
                    return <TableCell key={c}>{formatDate(code.redemption?.redeemedAt ?? code.redeemedAt)}</TableCell>;
                  case 'voidedAt':
                    return <TableCell key={c}>{formatDate(code.voidedAt)}</TableCell>;
                  case 'actions':
                    return (
                      <TableCell key={c}>
                        {isAvailable(code) && (
                          <DeleteButton label={code.code} onClick={() => onDelete(code)} disabled={list.deleting} />
                        )}
                      </TableCell>
                    );
                }
              })}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
