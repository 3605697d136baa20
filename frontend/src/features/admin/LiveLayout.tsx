import { Outlet } from 'react-router-dom';
import { RealtimeProvider } from './realtime';

/** Signed-in screens share one socket.io connection. */
export function LiveLayout() {
  return (
    <RealtimeProvider>
      <Outlet />
    </RealtimeProvider>
  );
}

export default LiveLayout;
