import ArrowBack from '@mui/icons-material/ArrowBack';
import Download from '@mui/icons-material/Download';
import Search from '@mui/icons-material/Search';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import Container from '@mui/material/Container';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Stack from '@mui/material/Stack';
import Tab from '@mui/material/Tab';
import Tabs from '@mui/material/Tabs';
import TextField from '@mui/material/TextField';
import Typography from '@mui/material/Typography';
import { useState, type FormEvent } from 'react';
import { Link as RouterLink, useParams } from 'react-router-dom';
import { pageOfText } from '../../components/pagination/pageItems';
import { Paginator } from '../../components/pagination/Paginator';
import { bodyMessage } from '../../utils/httpError';
import { PERMISSIONS, usePermissions } from '../auth/usePermissions';
import { useDocumentTitle } from '../site/useDocumentTitle';
import { useVoucherCodeList } from './useVoucherCodeList';
import { useVoucherDeleteConfirm } from './VoucherDeleteConfirm';
import { VoucherCodesTable } from './VoucherCodesTable';
import { UploadBatches } from './UploadBatches';
import type { VoucherTab } from './vouchersApi';
import { useProductControllerGetQuery } from '../../api';

/** docs/product.md §10.3: the page lists 100 codes a page (page-numbered, like every admin list). */
export const PAGE_SIZE = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const COLUMNS = {
  all: ['select', 'code', 'status', 'created', 'customer', 'actions'],
  unredeemed: ['select', 'code', 'status', 'created', 'customer', 'actions'],
  redeemed: ['code', 'status', 'created', 'customer', 'redeemedAt'],
  void: ['code', 'status', 'created', 'voidedAt'],
} as const;

function BackToAdmin() {
  return (
    <Button component={RouterLink} to="/admin" startIcon={<ArrowBack />}>
      Back to Admin
    </Button>
  );
}

/** docs/product.md §3.12 voucher codes screen, /admin/voucher-codes/{productId}. */
export function VoucherCodesPage() {
  const { productId } = useParams();
  const valid = !!productId && UUID.test(productId);
  useDocumentTitle('Voucher Codes');
  if (!valid) {
    return (
      <Container sx={{ py: 4 }}>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <BackToAdmin />
          <Alert severity="error">Invalid product ID</Alert>
        </Stack>
      </Container>
    );
  }
  return <VoucherCodesIfAllowed productId={productId} />;
}

/** Code lists need vouchers.view (docs/product.md §7.4); RequireAuth has loaded the permissions before this renders. */
function VoucherCodesIfAllowed({ productId }: { productId: string }) {
  const { can } = usePermissions();
  if (!can(PERMISSIONS.vouchersView)) {
    return (
      <Container sx={{ py: 4 }}>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <BackToAdmin />
          <Alert severity="warning">You do not have permission to view voucher codes.</Alert>
        </Stack>
      </Container>
    );
  }
  return <VoucherCodes productId={productId} />;
}

function VoucherCodes({ productId }: { productId: string }) {
  const { can } = usePermissions();
  const product = useProductControllerGetQuery(productId);
  const list = useVoucherCodeList(productId, PAGE_SIZE);
  const confirm = useVoucherDeleteConfirm(list, product.data?.name ?? 'this product');
  const [text, setText] = useState('');
  const canDelete = can(PERMISSIONS.vouchersDelete);

  const submitSearch = (e: FormEvent) => {
    e.preventDefault();
    list.setSearch(text);
  };

  if (product.isError) {
    return (
      <Container sx={{ py: 4 }}>
        <Stack spacing={2} sx={{ alignItems: 'flex-start' }}>
          <BackToAdmin />
          <Alert severity="error">{bodyMessage(product.error) ?? 'Product not found.'}</Alert>
        </Stack>
      </Container>
    );
  }

  return (
    <Box sx={{ minHeight: '100vh', bgcolor: 'background.default' }}>
      <Container component="main" maxWidth="xl" sx={{ py: 3 }}>
        <Stack spacing={2}>
          <Box>
            <BackToAdmin />
          </Box>
          <Typography variant="h1">Voucher Codes{product.data ? ` - ${product.data.name}` : ''}</Typography>
          <Paper variant="outlined" sx={{ p: 2 }}>
            <Stack spacing={2}>
              <Stack direction={{ xs: 'column', md: 'row' }} sx={{ gap: 2, justifyContent: 'space-between' }}>
                <Stack component="form" direction="row" spacing={1} onSubmit={submitSearch} role="search">
                  <TextField size="small" label="Search codes" value={text} onChange={(e) => setText(e.target.value)} />
                  <Button type="submit" variant="outlined" startIcon={<Search />}>
                    Search
                  </Button>
                </Stack>
                <Stack direction="row" sx={{ gap: 1, flexWrap: 'wrap' }}>
                  {can(PERMISSIONS.exportUnredeemedVouchers) && (
                    <Button
                      variant="outlined"
                      startIcon={<Download />}
                      onClick={() => void list.exportUnredeemed()}
                      disabled={list.exporting}
                    >
                      Export Unredeemed
                    </Button>
                  )}
                  {canDelete && list.selected.size > 0 && (
                    <Button color="error" variant="outlined" onClick={() => confirm.ask({ kind: 'selected' })}>
                      Delete Selected ({list.selected.size})
                    </Button>
                  )}
                  {canDelete && list.tab === 'unredeemed' && (
                    <Button
                      color="error"
                      variant="contained"
                      disabled={list.totalCount === 0}
                      onClick={() => confirm.ask({ kind: 'all-unredeemed' })}
                    >
                      Delete All Unredeemed
                    </Button>
                  )}
                </Stack>
              </Stack>
              <Tabs value={list.tab} onChange={(_e, v: VoucherTab) => list.setTab(v)} aria-label="Voucher code filter">
                <Tab value="all" label="All Codes" />
                <Tab value="unredeemed" label="Unredeemed" />
                <Tab value="redeemed" label="Redeemed" />
                <Tab value="void" label="Void" />
              </Tabs>
              {list.query.isFetching && <LinearProgress aria-label="Loading voucher codes" />}
              <VoucherCodesTable
                list={list}
                columns={[...COLUMNS[list.tab]]}
                canDelete={canDelete}
                onDelete={(code) => confirm.ask({ kind: 'one', code })}
              />
              <Paginator
                pages="ellipsis"
                label="Pages"
                variant="text"
                page={list.page}
                totalPages={list.totalPages}
                totalExact={list.totalExact}
                hasNext={list.hasNext}
                onPage={list.setPage}
                summary={pageOfText(list.page, list.totalPages, list.totalExact)}
              />
            </Stack>
          </Paper>
          <UploadBatches productId={productId} />
        </Stack>
      </Container>
      {confirm.dialog}
    </Box>
  );
}

export default VoucherCodesPage;
