import { useState } from 'react';
import { toast } from '../../components/toast';
import { errorText } from './errors';
import type { RedemptionList } from './useRedemptionList';
import {
  useRedemptionAdminControllerBulkAssignMutation,
  useRedemptionAdminControllerBulkDeleteMutation,
  useRedemptionAdminControllerRemoveMutation,
  useRedemptionAdminControllerResendMutation,
  useRedemptionMaintenanceControllerFixPendingMutation,
} from '../../api';

/** docs/product.md §9.3's dashboard resend failure sentence; the server's reason, when it gave one, follows it. */
export const RESEND_FAILED = 'There was an error sending the email. Please try again.';

/** docs/product.md §6.5 bulk delete confirmation. */
export const deleteConfirmation = (n: number) =>
  `Are you sure you want to delete ${n} redemption(s)? This action cannot be undone.`;

/** Resend, delete (asked first), bulk licence assignment and Fix Pending Emails with docs/product.md §9.3's toasts. */
export function useRedemptionActions(list: RedemptionList) {
  const { setSelected } = list;
  const [toDelete, setToDelete] = useState<{ ids: string[]; bulk: boolean } | null>(null);
  const [assigning, setAssigning] = useState(false);
  const [resend] = useRedemptionAdminControllerResendMutation();
  const [deleteOne, deleteOneState] = useRedemptionAdminControllerRemoveMutation();
  const [deleteMany, deleteManyState] = useRedemptionAdminControllerBulkDeleteMutation();
  const [bulkAssign, bulkAssignState] = useRedemptionAdminControllerBulkAssignMutation();
  const [fixPending, fixPendingState] = useRedemptionMaintenanceControllerFixPendingMutation();

  async function resendEmail(id: string) {
    try {
      await resend(id).unwrap();
      toast({ title: 'Email sent successfully', variant: 'success' });
    } catch (err) {
      const reason = errorText(err, '');
      toast({
        title: 'Failed to Send Email',
        description: reason ? `${RESEND_FAILED} ${reason}` : RESEND_FAILED,
        variant: 'destructive',
      });
    }
  }

  async function confirmDelete() {
    if (!toDelete) return;
    const { ids: targets, bulk } = toDelete;
    try {
      if (bulk) {
        const { deletedCount } = await deleteMany({ redemptionIds: targets }).unwrap();
        toast({
          title: 'Redemptions deleted',
          description: `${deletedCount} redemption(s) deleted.`,
          variant: 'success',
        });
        setSelected(new Set());
      } else {
        await deleteOne(targets[0]).unwrap();
        setSelected((prev) => new Set([...prev].filter((id) => id !== targets[0])));
        toast({ title: 'Redemption deleted', variant: 'success' });
      }
    } catch (err) {
      toast({
        title: bulk ? 'Bulk delete failed' : 'Failed to delete redemption',
        description: errorText(err, 'Please try again.'),
        variant: 'destructive',
      });
    } finally {
      setToDelete(null);
    }
  }

  async function assignToSelected(values: { licenseKey: string; downloadLink: string }) {
    try {
      const { successCount } = await bulkAssign({ redemptionIds: [...list.selected], ...values }).unwrap();
      toast({
        title: 'License assigned successfully',
        description: `Assigned to ${successCount} redemption(s).`,
        variant: 'success',
      });
      setSelected(new Set());
      setAssigning(false);
    } catch (err) {
      toast({
        title: 'Failed to assign licenses to selected redemptions',
        description: errorText(err, 'Please try again.'),
        variant: 'destructive',
      });
    }
  }

  async function runFixPending() {
    try {
      const { fixedCount, assignedCount } = await fixPending().unwrap();
      toast({
        title: 'Pending emails fixed',
        description: `${fixedCount} email(s) queued, ${assignedCount} license(s) assigned.`,
        variant: 'success',
      });
    } catch (err) {
      toast({
        title: 'Failed to fix pending emails',
        description: errorText(err, 'Please try again.'),
        variant: 'destructive',
      });
    }
  }

  return {
    resendEmail,
    toDelete,
    askDelete: (ids: string[], bulk: boolean) => setToDelete({ ids, bulk }),
    cancelDelete: () => setToDelete(null),
    confirmDelete,
    deleting: deleteOneState.isLoading || deleteManyState.isLoading,
    bulkDeleting: deleteManyState.isLoading,
    assigning,
    setAssigning,
    assignToSelected,
    bulkAssigning: bulkAssignState.isLoading,
    runFixPending,
    fixingPending: fixPendingState.isLoading,
  };
}

export type RedemptionActions = ReturnType<typeof useRedemptionActions>;
