import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../toast';

/** SPEC §9: the copy icon shows "copied" for 2 s. */
export const COPY_RESET_MS = 2000;

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
 * `copy(text, label)` puts text on the clipboard and tells the user with SPEC §8's toasts:
 * "Copied!" / "{label} has been copied to your clipboard", or "Copy failed" / "Please manually select and copy the text".
 */
export function useCopyToClipboard() {
  const [copied, setCopied] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = useCallback(async (text: string, label: string): Promise<boolean> => {
    try {
      await writeClipboard(text);
    } catch {
      toast({ title: 'Copy failed', description: 'Please manually select and copy the text', variant: 'destructive' });
      return false;
    }
    toast({ title: 'Copied!', description: `${label} has been copied to your clipboard` });
    setCopied(true);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopied(false), COPY_RESET_MS);
    return true;
  }, []);

  return { copy, copied };
}
