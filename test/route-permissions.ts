import { Permission } from '../backend/src/modules/auth/permissions';

/**
 * Every registered HTTP route and what it demands: 'public', or the permissions it needs
 * ([] = any signed-in user). test/permissions.e2e-spec.ts fails when a registered route is missing
 * here or differs, so adding a route means adding its line here (and a reviewer sees it).
 */
export const ROUTE_PERMISSIONS: Record<string, 'public' | Permission[]> = {
  // Public
  'GET /api/health': 'public',
  'GET /api/public-config': 'public',
  'POST /api/redeem-voucher': 'public',
  'GET /api/success-token/:token': 'public',

  // Admin authentication
  'POST /api/admin/login': 'public',
  'POST /api/admin/refresh': 'public',
  'GET /api/admin/me': [],
  'POST /api/admin/logout': [],
  'POST /api/admin/change-password': [],
  'POST /api/admin/2fa/setup': [],
  'POST /api/admin/2fa/enable': [],
  'POST /api/admin/2fa/disable': [],
  'POST /api/admin/reset-operator': [Permission.AdminResetOperator],
  'POST /api/admin/create-shop-manager': [Permission.AdminCreateShopManager],
};
