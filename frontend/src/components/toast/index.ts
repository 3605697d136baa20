export { Toaster } from './Toaster';
export { useToast } from './useToast';
export {
  dismissToast,
  toast,
  TOAST_DURATION_MS,
  TOAST_LIMIT,
  TOAST_REMOVE_DELAY_MS,
  TOAST_SWIPE_THRESHOLD_PX,
} from './toastStore';
export type { ToastItem, ToastOptions, ToastVariant } from './toastStore';
