import { useCallback, useMemo, useState } from 'react';
import { toast } from '../../components/toast';
import { currentAccessToken } from '../../app/authorizedFetch';
import { downloadFile } from '../admin/download';
import {
  isAvailable,
  useDeleteVoucherCodeMutation,
  useDeleteVoucherCodesMutation,
  useVoucherCodesQuery,
  type VoucherCode,
  type VoucherTab,
} from './vouchersApi';

const today = () => new Date().toISOString().slice(0, 10);

/**
 * State and actions shared by the voucher codes page and its modal version: tab, zero-based page, applied
 * search, the selection (available codes only) and the delete/export calls with docs/product.md §9.3's toasts.
 * Changing tab or search goes back to the first page and clears the selection.
 */
export function useVoucherCodeList(productId: string | undefined, limit: number) {
  const [tab, setTabState] = useState<VoucherTab>('all');
  const [page, setPage] = useState(0);
  const [search, setSearchState] = useState('');
  const [selected, setSelected] = useState<Set<string>>(() => new Set());

  const query = useVoucherCodesQuery(
    { productId: productId ?? '', tab, limit, offset: page * limit, search: search || undefined },
    { skip: !productId },
  );
  const [deleteOne, deleteOneState] = useDeleteVoucherCodeMutation();
  const [deleteMany, deleteManyState] = useDeleteVoucherCodesMutation();
  const [exporting, setExporting] = useState(false);

  const totalCount = query.data?.totalCount ?? 0;
  const totalPages = Math.max(1, Math.ceil(totalCount / limit));
  const totalExact = query.data?.totalCountExact !== false;
  const hasNext = query.data?.hasMore ?? false;
  const codes: VoucherCode[] = useMemo(() => query.data?.codes ?? [], [query.data]);

  const setTab = useCallback((next: VoucherTab) => {
    setTabState(next);
    setPage(0);
    setSelected(new Set());
  }, []);
  const setSearch = useCallback((next: string) => {
    setSearchState(next.trim());
    setPage(0);
    setSelected(new Set());
  }, []);
  const toggle = useCallback((id: string) => {
    setSelected((s) => {
      const next = new Set(s);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const selectable = useMemo(() => codes.filter(isAvailable), [codes]);
  const allOnPageSelected = selectable.length > 0 && selectable.every((c) => selected.has(c.id));
  const toggleAllOnPage = useCallback(() => {
    setSelected((s) => {
      const next = new Set(s);
      if (selectable.every((c) => next.has(c.id))) selectable.forEach((c) => next.delete(c.id));
      else selectable.forEach((c) => next.add(c.id));
      return next;
    });
  }, [selectable]);

  const removeOne = async (id: string) => {
    const result = await deleteOne(id);
    if ('error' in result) {
      toast({ title: 'Error', description: 'Failed to delete voucher code.', variant: 'destructive' });
      return false;
    }
    setSelected((s) => {
      const next = new Set(s);
      next.delete(id);
      return next;
    });
    toast({ title: 'Deleted', description: 'Voucher code deleted successfully.', variant: 'success' });
    return true;
  };

  const removeMany = async (kind: 'selected' | 'all-unredeemed') => {
    if (!productId) return false;
    const result = await deleteMany(
      kind === 'selected' ? { productId, deleteType: 'selected', voucherCodeIds: [...selected] } : { productId, deleteType: 'all-unredeemed' },
    );
    if ('error' in result) {
      toast({ title: 'Error', description: 'Failed to delete voucher codes.', variant: 'destructive' });
      return false;
    }
    setSelected(new Set());
    setPage(0);
    toast({ title: 'Deleted', description: result.data.message, variant: 'success' });
    return true;
  };

  const exportUnredeemed = async () => {
    if (!productId) return;
    if (!currentAccessToken()) {
      toast({ title: 'Authentication Error', description: 'Please log in again to export data.', variant: 'destructive' });
      return;
    }
    setExporting(true);
    try {
      // An access token that expired meanwhile is renewed once by `downloadFile`, as for every other call.
      const params = new URLSearchParams({ productId, format: 'csv' });
      await downloadFile(`/api/export/unredeemed-vouchers?${params}`, undefined, `unredeemed-vouchers-${today()}.csv`);
      toast({ title: 'Export Successful', description: 'Unredeemed voucher codes have been exported.', variant: 'success' });
    } catch (err) {
      if ((err as { status?: number }).status === 404) {
        toast({ title: 'No Data', description: 'No unredeemed voucher codes found to export.', variant: 'destructive' });
      } else {
        toast({ title: 'Export Failed', description: 'Failed to export unredeemed voucher codes.', variant: 'destructive' });
      }
    } finally {
      setExporting(false);
    }
  };

  return {
    tab,
    setTab,
    page,
    setPage,
    search,
    setSearch,
    codes,
    totalCount,
    totalPages,
    totalExact,
    hasNext,
    query,
    selected,
    toggle,
    allOnPageSelected,
    someOnPageSelected: selectable.some((c) => selected.has(c.id)),
    toggleAllOnPage,
    removeOne,
    removeMany,
    deleting: deleteOneState.isLoading || deleteManyState.isLoading,
    exportUnredeemed,
    exporting,
  };
}

export type VoucherCodeList = ReturnType<typeof useVoucherCodeList>;
