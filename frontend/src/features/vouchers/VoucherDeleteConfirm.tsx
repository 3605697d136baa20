import { useState } from 'react';
import { ConfirmDialog } from '../../components/dialogs/ConfirmDialog';
import type { VoucherCodeList } from './useVoucherCodeList';
import type { VoucherCode } from './vouchersApi';

export type PendingDelete = { kind: 'one'; code: VoucherCode } | { kind: 'selected' } | { kind: 'all-unredeemed' };

/** Asks before deleting one code, the selected codes, or every unredeemed code of the product. */
export function useVoucherDeleteConfirm(list: VoucherCodeList, productName: string) {
  const [pending, setPending] = useState<PendingDelete | null>(null);
  const close = () => setPending(null);
  const confirm = async () => {
    if (!pending) return;
    const ok = pending.kind === 'one' ? await list.removeOne(pending.code.id) : await list.removeMany(pending.kind);
    if (ok) close();
  };
  const text =
    pending?.kind === 'one'
      ? `Are you sure you want to delete the voucher code ${pending.code.code}? This action cannot be undone.`
      : pending?.kind === 'selected'
        ? `Are you sure you want to delete ${list.selected.size} voucher code(s)? This action cannot be undone.`
        : `Are you sure you want to delete all unredeemed voucher codes of ${productName}? Redeemed codes are kept. This action cannot be undone.`;
  const dialog = (
    <ConfirmDialog
      open={pending !== null}
      title={pending?.kind === 'all-unredeemed' ? 'Delete All Unredeemed' : 'Delete Voucher Codes'}
      confirmLabel="Delete"
      busy={list.deleting}
      onConfirm={() => void confirm()}
      onClose={close}
    >
      {text}
    </ConfirmDialog>
  );
  return { ask: setPending, dialog };
}
