import Box from '@mui/material/Box';
import CircularProgress from '@mui/material/CircularProgress';
import { lazy, Suspense } from 'react';
import { BrowserRouter, Outlet, useLocation, useRoutes, type RouteObject } from 'react-router-dom';
import { useEffect } from 'react';
import { Toaster } from '../components/toast';

/**
 * Every public screen is its own chunk, loaded when its route is first drawn: the redeem page loads no success,
 * policy or admin code. (Tests load them all up front: frontend/src/test/renderWithProviders.tsx.)
 */
export const publicPages = {
  RedeemPage: () => import('../features/redeem/RedeemPage'),
  WindowsSuccessPage: () => import('../features/success/WindowsSuccessPage'),
  MacSuccessPage: () => import('../features/success/MacSuccessPage'),
  MyLicencesPage: () => import('../features/licence-centre/MyLicencesPage'),
  GeoBlockedPage: () => import('../features/errors/GeoBlockedPage'),
  NotFoundPage: () => import('../features/errors/NotFoundPage'),
  PrivacyPolicyPage: () => import('../features/legal/PrivacyPolicyPage'),
  TermsPage: () => import('../features/legal/TermsPage'),
};
const RedeemPage = lazy(publicPages.RedeemPage);
const WindowsSuccessPage = lazy(publicPages.WindowsSuccessPage);
const MacSuccessPage = lazy(publicPages.MacSuccessPage);
const MyLicencesPage = lazy(publicPages.MyLicencesPage);
const GeoBlockedPage = lazy(publicPages.GeoBlockedPage);
const NotFoundPage = lazy(publicPages.NotFoundPage);
const PrivacyPolicyPage = lazy(publicPages.PrivacyPolicyPage);
const TermsPage = lazy(publicPages.TermsPage);
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
      { path: '/my-licences', element: <MyLicencesPage /> },
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
