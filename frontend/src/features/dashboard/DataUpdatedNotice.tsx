import Sync from '@mui/icons-material/Sync';
import Chip from '@mui/material/Chip';
import Fade from '@mui/material/Fade';
import { useEffect, useState } from 'react';
import { useRealtime } from '../admin/realtime';

/** docs/product.md §10.4: the notice stays 3 s after a real-time update. */
export const DATA_UPDATED_MS = 3000;

export function DataUpdatedNotice() {
  const { lastUpdate } = useRealtime();
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (!lastUpdate) return;
    setVisible(true);
    const timer = setTimeout(() => setVisible(false), DATA_UPDATED_MS);
    return () => clearTimeout(timer);
  }, [lastUpdate]);
  return (
    <div role="status" aria-live="polite" style={{ minHeight: 32, display: 'flex', alignItems: 'center' }}>
      <Fade in={visible} unmountOnExit>
        <Chip icon={<Sync />} color="success" label="Data Updated" title={lastUpdate?.message} />
      </Fade>
    </div>
  );
}
