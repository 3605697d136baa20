import Link from '@mui/material/Link';
import { lazy, Suspense, useState } from 'react';

// The dialog (form, rules, its API call) is its own chunk: the public pages' first load carries only this link.
const ResendEmailDialog = lazy(() => import('./ResendEmailDialog'));

export const RESEND_LINK_TEXT = "Didn't get the e-mail?";

/**
 * "Didn't get the e-mail?" (docs/product.md §19.2): opens the resend dialog, loading it on the first click; on a
 * success page with the customer's address and code filled in (§19.4).
 */
export function ResendEmailLink({ email, voucherCode }: { email?: string; voucherCode?: string }) {
  const [open, setOpen] = useState(false);
  const [opened, setOpened] = useState(false);
  return (
    <>
      <Link
        component="button"
        type="button"
        variant="body2"
        onClick={() => {
          setOpened(true);
          setOpen(true);
        }}
      >
        {RESEND_LINK_TEXT}
      </Link>
      {opened && (
        <Suspense fallback={null}>
          <ResendEmailDialog open={open} email={email} voucherCode={voucherCode} onClose={() => setOpen(false)} />
        </Suspense>
      )}
    </>
  );
}
