import Alert from '@mui/material/Alert';
import Box from '@mui/material/Box';
import { useState } from 'react';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import { showingText } from '../../components/pagination/pageItems';
import { Paginator } from '../../components/pagination/Paginator';
import { usePermissions } from '../auth/usePermissions';
import { BulkAssignDialog } from './BulkAssignDialog';
import { errorText } from './errors';
import { RedemptionDetailsDialog } from './RedemptionDetailsDialog';
import type { AdminRedemption } from './redemptionsApi';
import { RedemptionsTable } from './RedemptionsTable';
import { RedemptionsToolbar } from './RedemptionsToolbar';
import { SelectionBar } from './SelectionBar';
import { deleteConfirmation, useRedemptionActions } from './useRedemptionActions';
import { useRedemptionExports } from './useRedemptionExports';
import { useRedemptionList } from './useRedemptionList';

/**
 * Recent Redemptions (`showExported` false) and Exported Vouchers (true). The dashboard remounts it on tab
 * change (`key`), which resets page, filter and search (docs/product.md §3.5). List state, actions and exports live in
 * their hooks; this puts toolbar, selection bar, table, pages and dialogs together.
 */
export function RedemptionsTab({
  showExported,
  onOpenExported,
}: {
  showExported: boolean;
  /** Opens the Exported Vouchers tab (the empty Recent Redemptions list's hint, docs/product.md §3.17). */
  onOpenExported?: () => void;
}) {
  const { can } = usePermissions();
  const list = useRedemptionList(showExported);
  const actions = useRedemptionActions(list);
  const exports = useRedemptionExports(list);
  const [details, setDetails] = useState<AdminRedemption | null>(null);
  const { data, selected } = list;
  const { toDelete } = actions;

  return (
    <Box>
      <RedemptionsToolbar list={list} actions={actions} exports={exports} />

      {!showExported && selected.size > 0 && (
        <SelectionBar
          count={selected.size}
          canExport={can('export.redeemed-vouchers')}
          canDelete={can('redemptions.delete')}
          canAssign={can('licenses.assign')}
          busy={exports.exporting || actions.bulkDeleting || actions.bulkAssigning}
          onClear={list.clearSelection}
          onExport={(format) => void exports.exportSelected(format)}
          onDelete={() => actions.askDelete([...selected], true)}
          onAssign={() => actions.setAssigning(true)}
        />
      )}

      {list.error && (
        <Alert severity="error" sx={{ mb: 2 }}>
          {errorText(list.error, 'Failed to load redemptions.')}
        </Alert>
      )}

      <RedemptionsTable
        list={list}
        onDetails={setDetails}
        onResend={(id) => void actions.resendEmail(id)}
        onDelete={(id) => actions.askDelete([id], false)}
        onOpenExported={onOpenExported}
      />

      {data && data.pagination.totalCount > 0 && (
        <Paginator
          pages={showExported ? 'count' : 'window'}
          page={data.pagination.currentPage}
          totalPages={data.pagination.totalPages}
          totalExact={data.pagination.totalCountExact !== false}
          hasNext={data.pagination.hasNextPage}
          onPage={list.setPage}
          summary={showExported ? undefined : showingText(data.pagination)}
          sx={showExported ? { justifyContent: 'center', mt: 2 } : { mt: 2 }}
        />
      )}

      {details && <RedemptionDetailsDialog redemption={details} onClose={() => setDetails(null)} />}
      {actions.assigning && (
        <BulkAssignDialog
          count={selected.size}
          busy={actions.bulkAssigning}
          onSubmit={(v) => void actions.assignToSelected(v)}
          onClose={() => actions.setAssigning(false)}
        />
      )}
      <ConfirmDialog
        open={toDelete !== null}
        title={toDelete?.bulk ? 'Delete Selected' : 'Delete Redemption'}
        confirmLabel="Delete"
        busy={actions.deleting}
        onConfirm={() => void actions.confirmDelete()}
        onClose={actions.cancelDelete}
      >
        {deleteConfirmation(toDelete?.ids.length ?? 0)}
      </ConfirmDialog>
    </Box>
  );
}

export default RedemptionsTab;
