import { useSyncExternalStore } from 'react';
import { dismissToast, getToasts, subscribeToasts, toast } from './toastStore';

/** The toasts on screen plus `toast(...)` and `dismiss(id?)`. */
export function useToast() {
  const toasts = useSyncExternalStore(subscribeToasts, getToasts, getToasts);
  return { toasts, toast, dismiss: dismissToast };
}
