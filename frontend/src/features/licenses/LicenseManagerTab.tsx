import AddIcon from '@mui/icons-material/Add';
import VisibilityIcon from '@mui/icons-material/Visibility';
import VisibilityOffIcon from '@mui/icons-material/VisibilityOff';
import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import Button from '@mui/material/Button';
import FormControl from '@mui/material/FormControl';
import IconButton from '@mui/material/IconButton';
import InputLabel from '@mui/material/InputLabel';
import MenuItem from '@mui/material/MenuItem';
import Paper from '@mui/material/Paper';
import Select from '@mui/material/Select';
import Stack from '@mui/material/Stack';
import Switch from '@mui/material/Switch';
import TextField from '@mui/material/TextField';
import Tooltip from '@mui/material/Tooltip';
import Typography from '@mui/material/Typography';
import { useState } from 'react';
import { CopyButton } from '../../components/copy/CopyButton';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { ListTable } from '../../components/list/ListTable';
import { useListState } from '../../components/list/useListState';
import { showingText } from '../../components/pagination/pageItems';
import { Paginator } from '../../components/pagination/Paginator';
import { StatusChip } from '../../components/status/StatusChip';
import { useCopyToClipboard } from '../../components/copy/useCopyToClipboard';
import { toast } from '../../components/toast';
import { maskLicenseKey } from '../../utils/maskLicenseKey';
import { usePermissions } from '../auth/usePermissions';
import { errorText } from '../redemptions/errors';
import { formatDateTime } from '../redemptions/formatDate';
import { DeleteButton } from '../../components/actions/DeleteButton';
import { AddLicenseKeyForm } from './AddLicenseKeyForm';
import { LICENSE_TYPE_LABELS, sortByUsage, USAGE_LABELS, usageStatusOf } from './licenseRules';
import { licenseKeysArg, type LicenseKey, type LicenseKeysPage } from './licensesApi';
import {
  useLicenseKeyControllerLicenseManagedProductsQuery,
  useLicenseKeyControllerListQuery,
  useLicenseKeyControllerRemoveMutation,
  useLicenseKeyControllerUpdateMutation,
} from '../../api';

export const LICENSE_PAGE_SIZE = 50;
const keysOf = (page: LicenseKeysPage) => page.licenseKeys;

/** docs/product.md §9.3: the description of "Copy failed" for a licence key. */
const COPY_KEY_FAILED = 'Failed to copy license key to clipboard.';

const USAGE_COLORS = { available: 'success', 'partially-used': 'warning', 'fully-used': 'error' } as const;

function SummaryCard({ label, value }: { label: string; value: number | undefined }) {
  return (
    <Paper variant="outlined" sx={{ p: 2, flex: 1, minWidth: 140 }} role="group" aria-label={label}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {label}
      </Typography>
      <Typography sx={{ fontSize: '1.6rem', fontWeight: 700 }}>{value ?? '–'}</Typography>
    </Paper>
  );
}

function KeyCell({ licenseKey, copied, onCopy }: { licenseKey: LicenseKey; copied: boolean; onCopy: () => void }) {
  const [revealed, setRevealed] = useState(false);
  return (
    <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
      <Typography
        data-testid="license-key-text"
        variant="body2"
        sx={{ fontFamily: 'monospace', wordBreak: 'break-all' }}
      >
        {/* docs/product.md §3.9: the list masks the whole key with asterisks until revealed. */}
        {revealed ? licenseKey.licenseKey : '*'.repeat(licenseKey.licenseKey.length)}
      </Typography>
      <Tooltip title={revealed ? 'Hide' : 'Reveal'}>
        <IconButton
          size="small"
          aria-label={revealed ? 'Hide license key' : 'Reveal license key'}
          aria-pressed={revealed}
          onClick={() => setRevealed((r) => !r)}
        >
          {revealed ? <VisibilityOffIcon fontSize="small" /> : <VisibilityIcon fontSize="small" />}
        </IconButton>
      </Tooltip>
      <CopyButton
        size="small"
        copied={copied}
        label="Copy license key"
        copiedLabel="License key copied"
        onClick={onCopy}
      />
    </Stack>
  );
}

/** docs/product.md §3.9 License key management panel (License Manager tab). */
export function LicenseManagerTab() {
  const { can } = usePermissions();
  const canManage = can('licenses.manage');
  const list = useListState({
    pageSize: LICENSE_PAGE_SIZE,
    filters: { productId: '' },
    rowsOf: keysOf,
    useQuery: (args) => useLicenseKeyControllerListQuery(licenseKeysArg(args)),
  });
  const { data, error, filters, setFilter } = list;
  const [adding, setAdding] = useState(false);
  const [toDelete, setToDelete] = useState<LicenseKey | null>(null);
  const { copy, copiedId } = useCopyToClipboard(COPY_KEY_FAILED);

  const products = useLicenseKeyControllerLicenseManagedProductsQuery();
  const [update] = useLicenseKeyControllerUpdateMutation();
  const [remove, removeState] = useLicenseKeyControllerRemoveMutation();

  async function toggleActive(key: LicenseKey) {
    try {
      await update({ id: key.id, updateLicenseKeyDto: { isActive: !key.isActive } }).unwrap();
    } catch (err) {
      toast({
        title: 'Failed to update license key',
        description: errorText(err, 'Please try again.'),
        variant: 'destructive',
      });
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    try {
      await remove(toDelete.id).unwrap();
      toast({ title: 'License key deleted', variant: 'success' });
    } catch (err) {
      toast({
        title: 'Failed to delete license key',
        description: errorText(err, 'Please try again.'),
        variant: 'destructive',
      });
    } finally {
      setToDelete(null);
    }
  }

  const keys = sortByUsage(list.rows);
  const summary = data?.summary;

  return (
    <Box>
      <Stack direction="row" spacing={2} sx={{ mb: 2, flexWrap: 'wrap', rowGap: 2 }}>
        <SummaryCard label="Total Keys" value={summary?.totalKeys} />
        <SummaryCard label="Active" value={summary?.active} />
        <SummaryCard label="Fully Used" value={summary?.fullyUsed} />
        <SummaryCard label="Available" value={summary?.available} />
      </Stack>

      <Stack direction={{ xs: 'column', md: 'row' }} spacing={2} sx={{ mb: 2, alignItems: { md: 'center' } }}>
        <TextField
          label="Search"
          placeholder="Part of a license key"
          size="small"
          value={list.searchInput}
          onChange={(e) => list.setSearchInput(e.target.value)}
          sx={{ flex: 1 }}
          slotProps={{ htmlInput: { 'aria-label': 'Search license keys', maxLength: 100 } }}
        />
        <FormControl size="small" sx={{ minWidth: 260 }}>
          <InputLabel id="license-filter-product">Product</InputLabel>
          <Select
            labelId="license-filter-product"
            label="Product"
            value={filters.productId}
            onChange={(e) => setFilter('productId', e.target.value)}
          >
            <MenuItem value="">All Products</MenuItem>
            {(products.data ?? []).map((p) => (
              <MenuItem key={p.id} value={p.id}>
                {p.name}
              </MenuItem>
            ))}
          </Select>
        </FormControl>
        {canManage && (
          <Button
            variant="contained"
            startIcon={<AddIcon />}
            onClick={() => setAdding((a) => !a)}
            aria-expanded={adding}
          >
            Add License Key
          </Button>
        )}
      </Stack>

      {canManage && adding && <AddLicenseKeyForm products={products.data ?? []} onClose={() => setAdding(false)} />}

      {error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(error, 'Failed to load license keys.')}
        </Alert>
      )}

      <ListTable
        label="License keys"
        outlined
        loading={list.isFetching}
        loadingLabel="Loading license keys"
        rows={keys}
        empty={data && keys.length === 0 ? 'No license keys found.' : undefined}
        rowProps={() => ({ 'data-testid': 'license-key-row' })}
        columns={[
          {
            key: 'key',
            header: 'License Key',
            render: (k) => (
              <KeyCell licenseKey={k} copied={copiedId === k.id} onCopy={() => void copy(k.licenseKey, { id: k.id })} />
            ),
          },
          { key: 'product', header: 'Product', render: (k) => k.productName },
          { key: 'type', header: 'Type', render: (k) => LICENSE_TYPE_LABELS[k.licenseType] ?? k.licenseType },
          {
            key: 'usage',
            header: 'Usage',
            render: (k) => {
              const usage = usageStatusOf(k);
              return (
                <Stack direction="row" spacing={1} sx={{ alignItems: 'center' }}>
                  <StatusChip label={USAGE_LABELS[usage]} color={USAGE_COLORS[usage]} variant="outlined" />
                  <Typography
                    variant="caption"
                    sx={{ color: 'text.secondary' }}
                  >{`${k.currentActivations}/${k.maxActivations}`}</Typography>
                </Stack>
              );
            },
          },
          {
            key: 'status',
            header: 'Status',
            render: (k) => (
              <StatusChip label={k.isActive ? 'Active' : 'Inactive'} color={k.isActive ? 'success' : 'default'} />
            ),
          },
          { key: 'created', header: 'Created', render: (k) => formatDateTime(k.createdAt) },
          ...(canManage
            ? [
                {
                  key: 'actions',
                  header: 'Actions',
                  align: 'right' as const,
                  sx: { whiteSpace: 'nowrap' },
                  render: (k: LicenseKey) => (
                    <>
                      <Tooltip title={k.isActive ? 'Deactivate' : 'Activate'}>
                        <Switch
                          size="small"
                          checked={k.isActive}
                          onChange={() => void toggleActive(k)}
                          slotProps={{
                            input: {
                              'aria-label': `${k.isActive ? 'Deactivate' : 'Activate'} ${maskLicenseKey(k.licenseKey)}`,
                            },
                          }}
                        />
                      </Tooltip>
                      <DeleteButton label={maskLicenseKey(k.licenseKey)} onClick={() => setToDelete(k)} />
                    </>
                  ),
                },
              ]
            : []),
        ]}
      />

      {data && data.pagination.totalPages > 1 && (
        <Paginator
          pages="window"
          page={data.pagination.currentPage}
          totalPages={data.pagination.totalPages}
          totalExact={data.pagination.totalCountExact !== false}
          hasNext={data.pagination.hasNextPage}
          onPage={list.setPage}
          summary={showingText(data.pagination)}
          sx={{ mt: 2 }}
        />
      )}

      <ConfirmDialog
        open={toDelete !== null}
        title="Delete License Key"
        confirmLabel="Delete"
        busy={removeState.isLoading}
        onConfirm={() => void confirmDelete()}
        onClose={() => setToDelete(null)}
      >
        {`Are you sure you want to delete the license key ${toDelete ? maskLicenseKey(toDelete.licenseKey) : ''}? This action cannot be undone.`}
      </ConfirmDialog>
    </Box>
  );
}

export default LicenseManagerTab;
