import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Outlet, useLocation, useRoutes, type RouteObject } from 'react-router-dom';
import { useEffect } from 'react';
import { Toaster } from '../components/toast';

// Every screen is its own chunk: the redeem page loads no success, policy or admin code.
const RedeemPage = lazy(() => import('../features/redeem/RedeemPage'));
const WindowsSuccessPage = lazy(() => import('../features/success/WindowsSuccessPage'));
const MacSuccessPage = lazy(() => import('../features/success/MacSuccessPage'));
const GeoBlockedPage = lazy(() => import('../features/errors/GeoBlockedPage'));
const NotFoundPage = lazy(() => import('../features/errors/NotFoundPage'));
const PrivacyPolicyPage = lazy(() => import('../features/legal/PrivacyPolicyPage'));
const TermsPage = lazy(() => import('../features/legal/TermsPage'));
/** The admin console: `/admin`, `/admin/login`, `/admin/voucher-codes/{productId}` route inside it. */
const AdminApp = lazy(() => import('../features/admin/AdminApp'));

export function PageLoading() {
  return (
    <Box aria-busy="true" sx={{ display: 'grid', placeItems: 'center', minHeight: '60vh' }}>
      <CircularProgress aria-label="Loading page" />
    </Box>
  );
}

function RootLayout() {
  return (
    <>
      <Suspense fallback={<PageLoading />}>
        <Outlet />
      </Suspense>
      <Toaster />
      <ScrollToTop />
    </>
  );
}

/** docs/product.md §2.1 route table. */
export const routes: RouteObject[] = [
  {
    element: <RootLayout />,
    children: [
      { path: '/', element: <RedeemPage /> },
      { path: '/admin/*', element: <AdminApp /> },
      { path: '/privacy-policy', element: <PrivacyPolicyPage /> },
      { path: '/terms-conditions', element: <TermsPage /> },
      { path: '/success/windows', element: <WindowsSuccessPage /> },
      { path: '/success/mac', element: <MacSuccessPage /> },
      { path: '/geo-blocked', element: <GeoBlockedPage /> },
      { path: '*', element: <NotFoundPage /> },
    ],
  },
];

function ScrollToTop() {
  const { pathname } = useLocation();
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [pathname]);
  return null;
}

export function AppRoutes() {
  return useRoutes(routes);
}

export function AppRouter() {
  return (
    <BrowserRouter>
      <AppRoutes />
    </BrowserRouter>
  );
}
