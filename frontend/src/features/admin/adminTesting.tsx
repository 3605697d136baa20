/* Test helpers of the admin console (component tests only; never imported by the app). */
import type { ProductResponse, StatsResponse, VoucherCodePageResponse } from '../../api';
import { Outlet, type RouteObject } from 'react-router-dom';
import { Toaster } from '../../components/toast';
import { LoginPage } from '../auth/LoginPage';
import { RequireAuth } from '../auth/RequireAuth';
import { installAdminSession } from '../auth/session';
import { installLoadErrorToasts } from './loadErrorToasts';
import { storeTokens } from '../auth/tokenStorage';
import { DashboardPage } from '../dashboard/DashboardPage';
import { SecurityPage } from '../security/SecurityPage';
import { VoucherCodesPage } from '../vouchers/VoucherCodesPage';

/** docs/product.md §7.2 permissions of each role, as `GET /api/admin/me` returns them. */
export const ALL_PERMISSIONS = [
  'dashboard.view',
  'vouchers.view',
  'licenses.view',
  'settings.access',
  'system.cleanup',
  'admin.reset-operator',
  'admin.create-shop-manager',
  'redemptions.delete',
  'export.redeemed-data',
  'export.unredeemed-vouchers',
  'export.redeemed-vouchers',
  'vouchers.upload',
  'vouchers.delete',
  'products.edit',
  'licenses.manage',
  'licenses.assign',
  'emails.resend',
  'emails.fix-pending',
  'vouchers.void',
  'webhooks.manage',
  'api-tokens.manage',
];
const OPERATOR_DENIED = [
  'settings.access',
  'redemptions.delete',
  'system.cleanup',
  'export.redeemed-data',
  'export.unredeemed-vouchers',
  'admin.reset-operator',
  'admin.create-shop-manager',
  'emails.fix-pending',
  'webhooks.manage',
  'api-tokens.manage',
];

export function meOf(role: 'admin' | 'operator' | 'shop-manager') {
  const permissions =
    role === 'admin'
      ? ALL_PERMISSIONS
      : role === 'operator'
        ? ALL_PERMISSIONS.filter((p) => !OPERATOR_DENIED.includes(p))
        : ['dashboard.view'];
  return {
    id: `00000000-0000-4000-a000-00000000000${['admin', 'operator', 'shop-manager'].indexOf(role) + 1}`,
    username: role === 'shop-manager' ? 'shop_manager' : role,
    email: `${role}@example.com`,
    role,
    permissions,
    twoFactorEnabled: false,
  };
}

/** The admin routes of AdminApp without the socket.io connection, plus the toast region. */
export function adminRoutes(): RouteObject[] {
  installAdminSession();
  installLoadErrorToasts();
  return [
    {
      element: (
        <>
          <Outlet />
          <Toaster />
        </>
      ),
      children: [
        { path: '/admin/login', element: <LoginPage /> },
        {
          element: <RequireAuth />,
          children: [
            { path: '/admin', element: <DashboardPage /> },
            { path: '/admin/voucher-codes/:productId?', element: <VoucherCodesPage /> },
            { path: '/admin/security', element: <SecurityPage /> },
          ],
        },
      ],
    },
  ];
}

export function signIn(accessToken = 'access-1', refreshToken = 'refresh-1'): void {
  storeTokens(accessToken, refreshToken);
}

/** The network edge of the admin component tests: the shared fake server (test/fakeServer.ts). */
export { fakeServer as adminServer } from '../../test/fakeServer';
export type { FakeRequest as AdminRequest, Handler as AdminHandler } from '../../test/fakeServer';

export const PRODUCT = {
  id: '11111111-1111-4111-8111-111111111111',
  name: 'Office 2024 Professional Plus (Windows)',
  downloadLink: 'https://dl.example.com/pro',
  activationLink: null,
  removalToolLink: null,
  productKey: null,
  emailTemplate: '<p>Hello {{customer_name}}, your key is {{ license_key }}</p>',
  emailSubject: 'Your order {{voucher_code}}',
  status: 'active',
  isLicenseManaged: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
  unredeemedCount: 120,
  redeemedCount: 3,
  voidCount: 0,
  totalCount: 123,
} satisfies ProductResponse;

export const STATS = {
  period: 'today',
  totalRedemptions: 4,
  activeVouchers: 120,
  voidVouchers: 0,
  timeRange: 'Today',
  from: '2026-11-21T00:00:00.000Z',
  to: '2026-11-22T00:00:00.000Z',
  timeZone: 'UTC',
  productStats: [],
  dailyRedemptions: [{ date: '2026-11-21', count: 4 }],
} satisfies StatsResponse;

/**
 * A page of voucher codes as the server answers it, with at most `rows` codes (a short page keeps jsdom
 * renders fast; the paging under test follows totalCount, limit and offset).
 */
export function codesPage(
  offset: number,
  limit: number,
  total: number,
  redeemed = false,
  rows = 5,
  totalCountExact = true,
): VoucherCodePageResponse {
  const count = Math.max(0, Math.min(limit, rows, total - offset));
  return {
    codes: Array.from({ length: count }, (_, i) => ({
      id: `00000000-0000-4000-8000-${String(offset + i).padStart(12, '0')}`,
      code: `CODE-${String(offset + i).padStart(5, '0')}`,
      isRedeemed: redeemed,
      status: redeemed ? ('redeemed' as const) : ('available' as const),
      createdAt: '2026-11-01T10:00:00.000Z',
      redeemedAt: redeemed ? '2026-11-02T10:00:00.000Z' : null,
      voidedAt: null,
      redemption: redeemed
        ? {
            id: `00000000-0000-4000-9000-${String(offset + i).padStart(12, '0')}`,
            redeemedAt: '2026-11-02T10:00:00.000Z',
            refundedAt: null,
            erasedAt: null,
            emailStatus: 'sent' as const,
            customer: {
              id: `00000000-0000-4000-b000-${String(offset + i).padStart(12, '0')}`,
              firstName: 'Ann',
              lastName: 'Lee',
              email: 'ann@example.com',
            },
          }
        : null,
    })),
    pagination: {
      currentPage: Math.floor(offset / limit) + 1,
      limit,
      totalCount: total,
      totalPages: Math.ceil(total / limit),
      hasPreviousPage: offset > 0,
      hasNextPage: offset + count < total,
      totalCountExact,
    },
    totalCount: total,
    hasMore: offset + count < total,
    totalCountExact,
  };
}
