import Download from '@mui/icons-material/Download';
import Button from '@mui/material/Button';
import Chip from '@mui/material/Chip';
import Dialog from '@mui/material/Dialog';
import DialogActions from '@mui/material/DialogActions';
import DialogContent from '@mui/material/DialogContent';
import DialogTitle from '@mui/material/DialogTitle';
import LinearProgress from '@mui/material/LinearProgress';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import Typography from '@mui/material/Typography';
import { aboutText } from '../../components/pagination/pageItems';
import { Paginator } from '../../components/pagination/Paginator';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import type { Product } from '../products/productsApi';
import { useVoucherCodeList } from './useVoucherCodeList';
import { useVoucherDeleteConfirm } from './VoucherDeleteConfirm';
import { VoucherCodesTable } from './VoucherCodesTable';
import type { VoucherTab } from './vouchersApi';

/** docs/product.md §10.3: the modal lists 50 codes a page. */
export const MODAL_PAGE_SIZE = 50;

const COLUMNS = {
  all: ['code', 'status', 'created', 'customer', 'actions'],
  unredeemed: ['select', 'code', 'status', 'created', 'actions'],
  redeemed: ['code', 'status', 'redeemedBy', 'redeemedAt'],
  void: ['code', 'status', 'created', 'voidedAt'],
} as const;

/** docs/product.md §3.12 modal version of the voucher codes list. */
export function VoucherCodesModal({
  product,
  open,
  onClose,
}: {
  product: Pick<Product, 'id' | 'name'>;
  open: boolean;
  onClose: () => void;
}) {
  const { can } = usePermissions();
  const list = useVoucherCodeList(product.id, MODAL_PAGE_SIZE);
  const confirm = useVoucherDeleteConfirm(list, product.name);
  const canDelete = can(PERMISSIONS.vouchersDelete);
  const from = list.totalCount === 0 ? 0 : (list.page - 1) * MODAL_PAGE_SIZE + 1;
  const to = Math.min(list.totalCount, list.page * MODAL_PAGE_SIZE);
  const total = list.totalExact ? list.totalCount.toLocaleString('en-US') : aboutText(list.totalCount);

  return (
    <Dialog open={open} onClose={onClose} fullWidth maxWidth="lg" aria-labelledby={`codes-title-${product.id}`}>
      <DialogTitle id={`codes-title-${product.id}`}>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <span>Voucher Codes - {product.name}</span>
          <Chip size="small" label={`${total} total`} data-testid="modal-total" />
        </Stack>
      </DialogTitle>
      <DialogContent dividers>
        <Tabs
          value={list.tab}
          onChange={(_e, v: VoucherTab) => list.setTab(v)}
          aria-label="Voucher code filter"
          sx={{ mb: 1 }}
        >
          <Tab value="all" label="All" />
          <Tab value="unredeemed" label="Unredeemed" />
          <Tab value="redeemed" label="Redeemed" />
          <Tab value="void" label="Void" />
        </Tabs>
        {list.tab === 'unredeemed' && (
          <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap', mb: 1 }}>
            {canDelete && (
              <>
                <Button
                  color="error"
                  variant="outlined"
                  disabled={list.selected.size === 0}
                  onClick={() => confirm.ask({ kind: 'selected' })}
                >
                  Delete Selected{list.selected.size > 0 ? ` (${list.selected.size})` : ''}
                </Button>
                <Button
                  color="error"
                  variant="outlined"
                  disabled={list.totalCount === 0}
                  onClick={() => confirm.ask({ kind: 'all-unredeemed' })}
                >
                  Delete All Unredeemed
                </Button>
              </>
            )}
            {can(PERMISSIONS.exportUnredeemedVouchers) && (
              <Button
                variant="outlined"
                startIcon={<Download />}
                onClick={() => void list.exportUnredeemed()}
                disabled={list.exporting}
              >
                Export Codes
              </Button>
            )}
          </Stack>
        )}
        {list.query.isFetching && <LinearProgress aria-label="Loading voucher codes" />}
        <VoucherCodesTable
          list={list}
          columns={[...COLUMNS[list.tab]]}
          canDelete={canDelete}
          onDelete={(code) => confirm.ask({ kind: 'one', code })}
        />
      </DialogContent>
      <DialogActions sx={{ justifyContent: 'space-between', px: 3 }}>
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          Showing {from}-{to} of {total} codes
        </Typography>
        <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
          <Paginator
            pages="count"
            variant="text"
            page={list.page}
            totalPages={list.totalPages}
            totalExact={list.totalExact}
            hasNext={list.hasNext}
            onPage={list.setPage}
          />
          <Button variant="contained" onClick={onClose}>
            Close
          </Button>
        </Stack>
      </DialogActions>
      {confirm.dialog}
    </Dialog>
  );
}
