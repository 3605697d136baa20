import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../toast';

/** docs/product.md §10.4: the copy icon shows "copied" for 2 s. */
export const COPY_RESET_MS = 2000;

/** docs/product.md §9.2's default description of "Copy failed". */
export const COPY_FAILED_TEXT = 'Please manually select and copy the text';

async function writeClipboard(text: string): Promise<void> {
  if (navigator.clipboard?.writeText) {
    await navigator.clipboard.writeText(text);
    return;
  }
  // Older browsers and insecure origins: copy through a selected, off-screen textarea.
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.left = '-9999px';
  document.body.appendChild(area);
  area.select();
  const ok = document.execCommand?.('copy');
  area.remove();
  if (!ok) throw new Error('copy refused');
}

/**
 * `copy(text, { label, id })` puts text on the clipboard. With a `label` it tells the user with docs/product.md §9.2's toast
 * "Copied!" / "{label} has been copied to your clipboard"; a failure always toasts "Copy failed" / `failureText`.
 * `copiedId` is the `id` of the last copy (default "copied") for 2 s, then null; `copied` says whether there is one.
 */
export function useCopyToClipboard(failureText: string = COPY_FAILED_TEXT) {
  const [copiedId, setCopiedId] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = useCallback(
    async (text: string, { label, id = 'copied' }: { label?: string; id?: string } = {}): Promise<boolean> => {
      try {
        await writeClipboard(text);
      } catch {
        toast({ title: 'Copy failed', description: failureText, variant: 'destructive' });
        return false;
      }
      if (label) toast({ title: 'Copied!', description: `${label} has been copied to your clipboard` });
      setCopiedId(id);
      clearTimeout(timer.current);
      timer.current = setTimeout(() => setCopiedId(null), COPY_RESET_MS);
      return true;
    },
    [failureText],
  );

  return { copy, copied: copiedId !== null, copiedId };
}
