import { lazy } from 'react';
import { Route, Routes } from 'react-router-dom';
import { LoginPage } from '../auth/LoginPage';
import { RequireAuth } from '../auth/RequireAuth';
import { installAdminSession } from '../auth/session';
import { installLoadErrorToasts } from './loadErrorToasts';

const NotFoundPage = lazy(() => import('../errors/NotFoundPage'));
// Chunks of their own: /admin/login loads neither the signed-in screens nor the socket.io client.
const LiveLayout = lazy(() => import('./LiveLayout'));
const DashboardPage = lazy(() => import('../dashboard/DashboardPage').then((m) => ({ default: m.DashboardPage })));
const VoucherCodesPage = lazy(() =>
  import('../vouchers/VoucherCodesPage').then((m) => ({ default: m.VoucherCodesPage })),
);
// The user-agent parser and the 2FA screens load only when someone opens Security.
const SecurityPage = lazy(() => import('../security/SecurityPage'));

// Loaded only with the admin console: from here on API calls carry the admin token and renew it on a 401.
installAdminSession();
// docs/product.md §9.3: every admin error is a toast, failed list loads included.
installLoadErrorToasts();

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
          <Route path="security" element={<SecurityPage />} />
        </Route>
      </Route>
      <Route path="*" element={<NotFoundPage />} />
    </Routes>
  );
}

export default AdminApp;
