import DeleteOutlined from '@mui/icons-material/DeleteOutlined';
import Checkbox from '@mui/material/Checkbox';
import IconButton from '@mui/material/IconButton';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { StatusChip } from '../../components/status/StatusChip';
import type { VoucherCodeList } from './useVoucherCodeList';
import type { VoucherCode } from './vouchersApi';

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
} as const;

type Column = 'select' | 'code' | 'status' | 'created' | 'customer' | 'redeemedBy' | 'redeemedAt' | 'actions';

const HEADERS: Record<Column, string> = {
  select: '',
  code: 'Voucher Code',
  status: 'Status',
  created: 'Created Date',
  customer: 'Customer',
  redeemedBy: 'Redeemed By',
  redeemedAt: 'Redemption Date',
  actions: 'Actions',
};

/**
 * The codes table of the voucher page and modal. `columns` follows SPEC §2 per variant and tab; the
 * checkbox shows only for unredeemed codes; delete only for unredeemed codes and when permitted.
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
  const selectable = list.codes.some((c) => !c.isRedeemed);
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
                        {!code.isRedeemed && (
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
                        <StatusChip color={code.isRedeemed ? 'default' : 'success'} label={code.isRedeemed ? 'Redeemed' : 'Available'} />
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
                  case 'actions':
                    return (
                      <TableCell key={c}>
                        {!code.isRedeemed && (
                          <IconButton size="small" color="error" aria-label={`Delete ${code.code}`} onClick={() => onDelete(code)} disabled={list.deleting}>
                            <DeleteOutlined fontSize="small" />
                          </IconButton>
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
