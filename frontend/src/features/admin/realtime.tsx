import { createContext, useContext, useEffect, useState, type ReactNode } from 'react';
import { io, type Socket } from 'socket.io-client';
// The channel's events as the server declares them: a type-only import, no backend code is bundled.
import type {
  ClientToServerEvents,
  DataUpdate,
  DataUpdateType,
  ServerToClientEvents,
} from '../../../../backend/src/modules/realtime/realtime-events';
import { api, type TagType } from '../../app/api';
import { useAppDispatch } from '../../app/store';
import { refreshAccessToken } from '../auth/session';
import { getAccessToken } from '../auth/tokenStorage';

/**
 * docs/product.md §5.8: licence assignments, resends and deletions refresh redemptions and stats; product and voucher
 * changes refresh products and stats. The voucher-code lists and licence keys follow the same events, and so
 * do the redemption lists on `voucherUpdate`: a manual or Mac redemption and an export are announced only
 * that way, and the lists are not polled.
 */
export const TAGS_BY_EVENT: Partial<Record<DataUpdateType, TagType[]>> = {
  licenseAssignment: ['Redemptions', 'Stats', 'LicenseKeys'],
  emailResend: ['Redemptions', 'Stats'],
  redemptionDeleted: ['Redemptions', 'Stats', 'VoucherCodes'],
  productUpdate: ['Products', 'Stats'],
  voucherUpdate: ['Products', 'Stats', 'VoucherCodes', 'Redemptions'],
  // An order e-mail sent or finally failed (docs/product.md §17.2): the status column of the lists.
  emailStatus: ['Redemptions'],
  // A customer erased their personal data in the licence centre: the lists show "Erased on <date>".
  customerErased: ['Redemptions', 'VoucherCodes'],
  // A redemption held, approved or refused (docs/product.md §25.4): the Review tab and the lists.
  reviewUpdate: ['Redemptions', 'Stats', 'Products', 'LicenseKeys'],
};

export interface RealtimeState {
  /** The last event received, with a counter that changes on every event. */
  lastUpdate: (DataUpdate & { seq: number }) | null;
  connected: boolean;
}

const RealtimeContext = createContext<RealtimeState>({ lastUpdate: null, connected: false });

export function useRealtime(): RealtimeState {
  return useContext(RealtimeContext);
}

/**
 * The admin console's socket.io connection (same origin): after each connect it sends `join-admin {token}`;
 * `dataUpdate` events invalidate the RTK Query tags of docs/product.md §5.8. A refused join (expired access token) renews
 * the token once and reconnects.
 */
export function RealtimeProvider({ children }: { children: ReactNode }) {
  const dispatch = useAppDispatch();
  const [state, setState] = useState<RealtimeState>({ lastUpdate: null, connected: false });

  useEffect(() => {
    let seq = 0;
    let renewing = false;
    const socket: Socket<ServerToClientEvents, ClientToServerEvents> = io({
      path: '/socket.io',
      transports: ['websocket', 'polling'],
      withCredentials: true,
    });
    socket.on('connect', () => {
      socket.emit('join-admin', { token: getAccessToken() });
    });
    socket.on('admin-joined', () => {
      renewing = false;
      setState((s) => ({ ...s, connected: true }));
    });
    socket.on('join-error', async () => {
      setState((s) => ({ ...s, connected: false }));
      if (renewing) return;
      renewing = true;
      if (await refreshAccessToken()) socket.connect();
    });
    socket.on('disconnect', () => setState((s) => ({ ...s, connected: false })));
    socket.on('dataUpdate', (event) => {
      // A type this console does not know yet (a newer server) refreshes what most events do.
      const tags = TAGS_BY_EVENT[event?.type] ?? ['Redemptions', 'Products', 'Stats'];
      dispatch(api.util.invalidateTags(tags));
      seq += 1;
      setState((s) => ({ ...s, lastUpdate: { ...event, seq } }));
    });
    return () => {
      socket.removeAllListeners();
      socket.disconnect();
    };
  }, [dispatch]);

  return <RealtimeContext.Provider value={state}>{children}</RealtimeContext.Provider>;
}
