import CloseIcon from '@mui/icons-material/Close';
import Box from '@mui/material/Box';
import IconButton from '@mui/material/IconButton';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import { useEffect, useRef, useState, type PointerEvent } from 'react';
import { TOAST_SWIPE_THRESHOLD_PX, type ToastItem } from './toastStore';
import { useToast } from './useToast';

const HOTKEY = 'F8';

/**
 * The notification region (render once, near the root). F8 moves focus to it; a toast closes after its
 * duration (paused while hovered or focused), with its close button, or when swiped right past 50 px.
 */
export function Toaster() {
  const { toasts, dismiss } = useToast();
  const region = useRef<HTMLElement>(null);

  useEffect(() => {
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key === HOTKEY) {
        event.preventDefault();
        region.current?.focus();
      }
    };
    document.addEventListener('keydown', onKeyDown);
    return () => document.removeEventListener('keydown', onKeyDown);
  }, []);

  const visible = toasts.filter((t) => t.open);
  return (
    <Box
      component="section"
      ref={region}
      tabIndex={-1}
      aria-label={`Notifications (${HOTKEY})`}
      sx={{
        position: 'fixed',
        right: 0,
        bottom: 0,
        zIndex: (theme) => theme.zIndex.snackbar,
        p: 2,
        width: { xs: '100%', sm: 420 },
        outline: 'none',
        pointerEvents: visible.length ? 'auto' : 'none',
      }}
    >
      {/* Not a list: each toast is a live region (role status/alert), which a list item may not be (axe "list"). */}
      <Box sx={{ m: 0, p: 0, display: 'grid', gap: 1 }}>
        {visible.map((t) => (
          <ToastCard key={t.id} item={t} onDismiss={() => dismiss(t.id)} />
        ))}
      </Box>
    </Box>
  );
}

const COLOURS = {
  default: { bgcolor: 'background.paper', color: 'text.primary', borderColor: 'divider' },
  success: { bgcolor: 'success.main', color: 'success.contrastText', borderColor: 'success.dark' },
  destructive: { bgcolor: 'error.main', color: 'error.contrastText', borderColor: 'error.dark' },
} as const;

function ToastCard({ item, onDismiss }: { item: ToastItem; onDismiss: () => void }) {
  const [paused, setPaused] = useState(false);
  const [offset, setOffset] = useState(0);
  const start = useRef<number | null>(null);
  const dismiss = useRef(onDismiss);
  dismiss.current = onDismiss;

  useEffect(() => {
    if (paused || item.duration === undefined || !Number.isFinite(item.duration)) return;
    const timer = setTimeout(() => dismiss.current(), item.duration);
    return () => clearTimeout(timer);
  }, [paused, item.id, item.duration]);

  const onPointerDown = (event: PointerEvent) => {
    start.current = event.clientX;
    (event.currentTarget as Element).setPointerCapture?.(event.pointerId);
  };
  const onPointerMove = (event: PointerEvent) => {
    if (start.current !== null) setOffset(Math.max(0, event.clientX - start.current));
  };
  const onPointerUp = (event: PointerEvent) => {
    if (start.current === null) return;
    const moved = event.clientX - start.current;
    start.current = null;
    if (moved > TOAST_SWIPE_THRESHOLD_PX) onDismiss();
    else setOffset(0);
  };

  const destructive = item.variant === 'destructive';
  return (
    <Paper
      role={destructive ? 'alert' : 'status'}
      aria-live={destructive ? 'assertive' : 'polite'}
      aria-atomic="true"
      tabIndex={0}
      variant="outlined"
      data-variant={item.variant}
      onPointerDown={onPointerDown}
      onPointerMove={onPointerMove}
      onPointerUp={onPointerUp}
      onPointerCancel={() => {
        start.current = null;
        setOffset(0);
      }}
      onMouseEnter={() => setPaused(true)}
      onMouseLeave={() => setPaused(false)}
      onFocus={() => setPaused(true)}
      onBlur={() => setPaused(false)}
      onKeyDown={(event) => event.key === 'Escape' && onDismiss()}
      sx={{
        ...COLOURS[item.variant ?? 'default'],
        display: 'flex',
        alignItems: 'flex-start',
        gap: 1,
        p: 2,
        boxShadow: 6,
        touchAction: 'pan-y',
        transform: `translateX(${offset}px)`,
        transition: start.current === null ? 'transform 150ms ease-out' : 'none',
      }}
    >
      <Box sx={{ flex: 1, minWidth: 0 }}>
        {item.title && (
          <Typography component="div" variant="subtitle2" sx={{ fontWeight: 700 }}>
            {item.title}
          </Typography>
        )}
        {item.description && (
          <Typography component="div" variant="body2">
            {item.description}
          </Typography>
        )}
      </Box>
      <IconButton size="small" aria-label="Close notification" onClick={onDismiss} sx={{ color: 'inherit', mt: -0.5 }}>
        <CloseIcon fontSize="small" />
      </IconButton>
    </Paper>
  );
}
