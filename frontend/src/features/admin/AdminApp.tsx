import { lazy } from 'react';
import { Outlet, Route, Routes } from 'react-router-dom';
import { LoginPage } from '../auth/LoginPage';
import { RequireAuth } from '../auth/RequireAuth';
import { installAdminSession } from '../auth/session';
import { DashboardPage } from '../dashboard/DashboardPage';
import { VoucherCodesPage } from '../vouchers/VoucherCodesPage';
import { RealtimeProvider } from './realtime';

const NotFoundPage = lazy(() => import('../errors/NotFoundPage'));

// Loaded only with the admin console: from here on API calls carry the admin token and renew it on a 401.
installAdminSession();

/** Signed-in screens share one socket.io connection. */
function LiveLayout() {
  return (
    <RealtimeProvider>
      <Outlet />
    </RealtimeProvider>
  );
}

/**
 * Entry of the admin console, loaded lazily by the router for every `/admin/*` path so the public pages never
 * download admin code.
 */
export function AdminApp() {
  return (
    <Routes>
      <Route path="login" element={<LoginPage />} />
      <Route element={<RequireAuth />}>
        <Route element={<LiveLayout />}>
          <Route index element={<DashboardPage />} />
          <Route path="voucher-codes/:productId?" element={<VoucherCodesPage />} />
        </Route>
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

export default AdminApp;
