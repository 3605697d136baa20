import { useState } from 'react';
import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import { useAppDispatch } from '../../app/store';
import { toast } from '../../components/toast';
import { downloadFile, today } from '../admin/download';
import { errorText } from './errors';
import { redemptionListParams } from './redemptionsApi';
import type { RedemptionList } from './useRedemptionList';

export type ExportFormat = 'csv' | 'txt';

/**
 * The exports of a redemptions tab (docs/product.md §8.5). Exports mark redemptions exported on the server: the lists are
 * read again afterwards. An expired access token is renewed once by `downloadFile` (`authorizedFetch`), the
 * way every admin request does.
 */
export function useRedemptionExports(list: RedemptionList) {
  const dispatch = useAppDispatch();
  const [exporting, setExporting] = useState(false);
  const { showExported, emailStatus, search } = list;

  async function exportFile(run: () => Promise<void>, failureTitle: string, afterwards?: () => void) {
    setExporting(true);
    try {
      await run();
      toast({ title: 'Export Successful', variant: 'success' });
      afterwards?.();
    } catch (err) {
      toast({ title: failureTitle, description: errorText(err, 'Export failed'), variant: 'destructive' });
    } finally {
      setExporting(false);
      dispatch(api.util.invalidateTags(invalidatesFor('exportRedemptions')));
    }
  }

  const exportSelected = (format: ExportFormat) =>
    exportFile(
      () =>
        downloadFile(
          '/api/export/selected-redemptions',
          { method: 'POST', body: JSON.stringify({ redemptionIds: [...list.selected], format }) },
          `selected-redemptions-${today()}.${format}`,
        ),
      'Bulk export failed',
      list.clearSelection,
    );

  // docs/product.md §8.5: Recent Redemptions sends only the format; Exported Vouchers adds showExported=true, emailStatus, search.
  const exportAll = (format: ExportFormat) =>
    exportFile(() => {
      const params = new URLSearchParams(
        showExported ? { format, ...redemptionListParams({ emailStatus, showExported, search }) } : { format },
      );
      return downloadFile(
        `/api/export/redeemed-vouchers?${params}`,
        undefined,
        `redeemed-vouchers-${today()}.${format}`,
      );
    }, 'Export failed');

  const exportRedeemedCodes = (format: ExportFormat) =>
    exportFile(
      () =>
        downloadFile(
          `/api/export/redeemed-voucher-codes?format=${format}`,
          undefined,
          `redeemed-voucher-codes-${today()}.${format}`,
        ),
      'Export failed',
    );

  return { exporting, exportSelected, exportAll, exportRedeemedCodes };
}
