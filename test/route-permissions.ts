import { Permission } from '../backend/src/common/permissions';

/**
 * Every registered HTTP route and what it demands: 'public', 'customer' (a licence-centre customer token, never a
 * staff token), or the permissions it needs ([] = any signed-in staff user). test/permissions.e2e-spec.ts fails when a registered route is missing
 * here or differs, so adding a route means adding its line here (and a reviewer sees it).
 */
export const ROUTE_PERMISSIONS: Record<string, 'public' | 'customer' | Permission[]> = {
  // Public
  'GET /api/health': 'public',
  'GET /api/public-config': 'public',
  'POST /api/redeem-voucher': 'public',
  'GET /api/success-token/:token': 'public',
  'POST /api/resend-order-email': 'public',
  // The licence centre: sign-in by e-mail link, then the customer's own routes (docs/product.md §21).
  'POST /api/customer/access': 'public',
  'POST /api/customer/session': 'public',
  'GET /api/customer/licences': 'customer',
  'POST /api/customer/licences/:redemptionId/resend': 'customer',
  'GET /api/customer/data': 'customer',
  'POST /api/customer/erasure': 'customer',
  // Bearer METRICS_TOKEN instead of an admin session (404 when unset).
  'GET /metrics': 'public',

  // Admin authentication
  'POST /api/admin/login': 'public',
  'POST /api/admin/refresh': 'public',
  'GET /api/admin/me': [],
  'POST /api/admin/logout': [],
  'POST /api/admin/change-password': [],
  'POST /api/admin/2fa/setup': [],
  'POST /api/admin/2fa/enable': [],
  'POST /api/admin/2fa/disable': [],
  'POST /api/admin/2fa/recovery-codes': [],
  'GET /api/admin/sessions': [],
  'DELETE /api/admin/sessions/:id': [],
  'POST /api/admin/sessions/revoke-others': [],
  'POST /api/admin/reset-operator': [Permission.AdminResetOperator],
  'POST /api/admin/create-shop-manager': [Permission.AdminCreateShopManager],
  'POST /api/admin/users/:id/deactivate': [Permission.AdminDeactivateUser],
  // Single sign-on (404 when OIDC_ISSUER is unset) and integrations' API tokens
  'GET /api/admin/oidc/login': 'public',
  'GET /api/admin/oidc/callback': 'public',
  // The one-time code of the callback with its browser cookie: both are the credential.
  'POST /api/admin/oidc/exchange': 'public',
  'POST /api/admin/api-tokens': [Permission.ApiTokensManage],
  'GET /api/admin/api-tokens': [Permission.ApiTokensManage],
  'DELETE /api/admin/api-tokens/:id': [Permission.ApiTokensManage],
  // Products, voucher codes, statistics, exports
  'GET /api/products': [Permission.DashboardView],
  'GET /api/products/:id': [Permission.DashboardView],
  'POST /api/products': [Permission.ProductsEdit],
  'PUT /api/products/:id': [Permission.ProductsEdit],
  'POST /api/products/:id/test-email': [Permission.ProductsEdit],
  'POST /api/products/:id/voucher-codes': [Permission.VouchersUpload],
  'GET /api/products/:id/voucher-codes-detailed': [Permission.VouchersView],
  'GET /api/products/:id/batches': [Permission.VouchersView],
  'DELETE /api/products/:id/voucher-codes': [Permission.VouchersDelete],
  'POST /api/products/:id/voucher-codes/void': [Permission.VouchersVoid],
  'DELETE /api/voucher-codes/:id': [Permission.VouchersDelete],
  'GET /api/stats': [Permission.DashboardView],
  'GET /api/stats/:period': [Permission.DashboardView],
  'GET /api/license-pool/forecast': [Permission.DashboardView],
  'POST /api/export/selected-redemptions': [Permission.ExportRedeemedVouchers],
  'GET /api/export/redeemed-vouchers': [Permission.ExportRedeemedData],
  'GET /api/export/redeemed-voucher-codes': [Permission.ExportRedeemedVouchers],
  'GET /api/export/unredeemed-vouchers': [Permission.ExportUnredeemedVouchers],
  // A batch's reconciliation holds unredeemed and redeemed codes: both code exports' permissions (docs/product.md §7.4).
  'GET /api/export/batch/:id': [
    Permission.VouchersView,
    Permission.ExportUnredeemedVouchers,
    Permission.ExportRedeemedVouchers,
  ],

  // Licence keys, redemptions, system
  'GET /api/license-managed-products': [Permission.DashboardView],
  'GET /api/license-keys': [Permission.LicensesView],
  'POST /api/license-keys': [Permission.LicensesManage],
  'PUT /api/license-keys/:id': [Permission.LicensesManage],
  'DELETE /api/license-keys/:id': [Permission.LicensesManage],
  'GET /api/redemptions': [Permission.DashboardView],
  'GET /api/redemptions/:id': [Permission.DashboardView],
  'GET /api/redemptions/:id/history': [Permission.DashboardView],
  'POST /api/redemptions/:id/resend-email': [Permission.EmailsResend],
  'POST /api/redemptions/:id/assign-license': [Permission.LicensesAssign],
  'POST /api/redemptions/bulk-assign-license': [Permission.LicensesAssign],
  'DELETE /api/redemptions/:id': [Permission.RedemptionsDelete],
  'POST /api/redemptions/bulk-delete': [Permission.RedemptionsDelete],
  'POST /api/admin/fix-pending-emails': [Permission.EmailsFixPending],
  'DELETE /api/admin/cleanup-redeemed': [Permission.SystemCleanup],

  // Webhooks (Settings)
  'GET /api/webhooks': [Permission.WebhooksManage],
  'POST /api/webhooks': [Permission.WebhooksManage],
  'DELETE /api/webhooks/:id': [Permission.WebhooksManage],
  'GET /api/webhooks/:id/deliveries': [Permission.WebhooksManage],
  'POST /api/webhooks/:id/resume': [Permission.WebhooksManage],
  'POST /api/webhooks/:id/test': [Permission.WebhooksManage],
  // Marketplace connections (Settings); a marketplace's events carry its signature, no staff token.
  'GET /api/marketplaces': [Permission.MarketplacesManage],
  'POST /api/marketplaces': [Permission.MarketplacesManage],
  'PATCH /api/marketplaces/:id': [Permission.MarketplacesManage],
  'DELETE /api/marketplaces/:id': [Permission.MarketplacesManage],
  'GET /api/marketplaces/:id/status': [Permission.MarketplacesManage],
  'GET /api/marketplaces/:id/reconciliation': [Permission.MarketplacesManage],
  'POST /api/marketplaces/:id/retry-dead': [Permission.MarketplacesManage],
  'POST /api/marketplaces/:id/events': 'public',
  // Settings → Risk (docs/product.md §25.1)
  'GET /api/risk/rules': [Permission.SettingsAccess],
  'PUT /api/risk/rules': [Permission.SettingsAccess],
  'GET /api/risk/blocklist': [Permission.SettingsAccess],
  'POST /api/risk/blocklist': [Permission.SettingsAccess],
  'DELETE /api/risk/blocklist/:id': [Permission.SettingsAccess],
  // The review queue of held redemptions (docs/product.md §25.3)
  'GET /api/reviews': [Permission.ReviewsManage],
  'GET /api/reviews/:id/evidence': [Permission.ReviewsManage],
  'POST /api/reviews/:id/approve': [Permission.ReviewsManage],
  'POST /api/reviews/:id/refuse': [Permission.ReviewsManage],

  // Settings → Privacy requests: the licence centre's links, exports and erasures, without personal data.
  'GET /api/admin/privacy-requests': [Permission.SettingsAccess],
};

/**
 * Public routes whose credential is a signature of the request (a marketplace's, docs/product.md §24.2): a call without
 * one answers 401 `Invalid signature` whatever token it carries.
 */
export const SIGNED_ROUTES: readonly string[] = ['POST /api/marketplaces/:id/events'];
