import { useCallback, useEffect, useRef, useState } from 'react';
import { toast } from '../../components/toast';

/** SPEC §9: the copy icon resets after 2 s. */
export const COPY_RESET_MS = 2000;

/** Copies a licence key; `copiedId` names the key whose copy control shows the confirmation for 2 s. */
export function useCopyKey() {
  const [copiedId, setCopiedId] = useState<string | null>(null);
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const copy = useCallback(async (id: string, text: string) => {
    try {
      if (!navigator.clipboard?.writeText) throw new Error('no clipboard');
      await navigator.clipboard.writeText(text);
    } catch {
      toast({ title: 'Copy failed', description: 'Failed to copy license key to clipboard.', variant: 'destructive' });
      return;
    }
    setCopiedId(id);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setCopiedId(null), COPY_RESET_MS);
  }, []);

  return { copy, copiedId };
}
