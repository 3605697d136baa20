import { useCallback, useState } from 'react';
import { useListState } from '../../components/list/useListState';
import { toast } from '../../components/toast';
import { currentAccessToken } from '../../app/authorizedFetch';
import { downloadFile } from '../admin/download';
import { isAvailable, voucherCodesArg, type VoucherCodePage, type VoucherTab } from './vouchersApi';
import {
  useVoucherControllerDeleteManyMutation,
  useVoucherControllerDeleteOneMutation,
  useVoucherControllerListQuery,
} from '../../api';

const today = () => new Date().toISOString().slice(0, 10);

const codesOf = (page: VoucherCodePage) => page.codes;

/**
 * State and actions shared by the voucher codes page and its modal version: the list's state (`useListState`: tab
 * as its filter, page, applied search, the selection of available codes) and the delete/export calls with
 * docs/product.md §9.3's toasts. Changing tab or search goes back to the first page and clears the selection.
 */
export function useVoucherCodeList(productId: string | undefined, limit: number) {
  const list = useListState({
    pageSize: limit,
    filters: { tab: 'all' as VoucherTab },
    isSelectable: isAvailable,
    rowsOf: codesOf,
    useQuery: ({ tab, page, search }) =>
      useVoucherControllerListQuery(voucherCodesArg({ productId: productId ?? '', tab, limit, page, search }), {
        skip: !productId,
      }),
  });
  const { setSelected, setPage, setFilter } = list;
  const [deleteOne, deleteOneState] = useVoucherControllerDeleteOneMutation();
  const [deleteMany, deleteManyState] = useVoucherControllerDeleteManyMutation();
  const [exporting, setExporting] = useState(false);
  const setTab = useCallback((next: VoucherTab) => setFilter('tab', next), [setFilter]);

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
      kind === 'selected'
        ? { id: productId, deleteVoucherCodesDto: { deleteType: 'selected', voucherCodeIds: [...list.selected] } }
        : { id: productId, deleteVoucherCodesDto: { deleteType: 'all-unredeemed' } },
    );
    if ('error' in result) {
      toast({ title: 'Error', description: 'Failed to delete voucher codes.', variant: 'destructive' });
      return false;
    }
    setSelected(new Set());
    setPage(1);
    toast({ title: 'Deleted', description: result.data.message, variant: 'success' });
    return true;
  };

  const exportUnredeemed = async () => {
    if (!productId) return;
    if (!currentAccessToken()) {
      toast({
        title: 'Authentication Error',
        description: 'Please log in again to export data.',
        variant: 'destructive',
      });
      return;
    }
    setExporting(true);
    try {
      // An access token that expired meanwhile is renewed once by `downloadFile`, as for every other call.
      const params = new URLSearchParams({ productId, format: 'csv' });
      await downloadFile(`/api/export/unredeemed-vouchers?${params}`, undefined, `unredeemed-vouchers-${today()}.csv`);
      toast({
        title: 'Export Successful',
        description: 'Unredeemed voucher codes have been exported.',
        variant: 'success',
      });
    } catch (err) {
      if ((err as { status?: number }).status === 404) {
        toast({
          title: 'No Data',
          description: 'No unredeemed voucher codes found to export.',
          variant: 'destructive',
        });
      } else {
        toast({
          title: 'Export Failed',
          description: 'Failed to export unredeemed voucher codes.',
          variant: 'destructive',
        });
      }
    } finally {
      setExporting(false);
    }
  };

  return {
    ...list,
    tab: list.filters.tab,
    setTab,
    codes: list.rows,
    /** At least one page, as the voucher screens show it. */
    totalPages: Math.max(1, list.totalPages),
    removeOne,
    removeMany,
    deleting: deleteOneState.isLoading || deleteManyState.isLoading,
    exportUnredeemed,
    exporting,
  };
}

export type VoucherCodeList = ReturnType<typeof useVoucherCodeList>;
