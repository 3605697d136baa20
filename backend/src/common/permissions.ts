/** Every permission of the admin API, `resource.action` (docs/product.md §7.2). */
export enum Permission {
  DashboardView = 'dashboard.view',
  VouchersView = 'vouchers.view',
  LicensesView = 'licenses.view',
  SettingsAccess = 'settings.access',
  SystemCleanup = 'system.cleanup',
  AdminResetOperator = 'admin.reset-operator',
  AdminCreateShopManager = 'admin.create-shop-manager',
  AdminDeactivateUser = 'admin.deactivate-user',
  RedemptionsDelete = 'redemptions.delete',
  ExportRedeemedData = 'export.redeemed-data',
  ExportUnredeemedVouchers = 'export.unredeemed-vouchers',
  ExportRedeemedVouchers = 'export.redeemed-vouchers',
  VouchersUpload = 'vouchers.upload',
  VouchersDelete = 'vouchers.delete',
  VouchersVoid = 'vouchers.void',
  ProductsEdit = 'products.edit',
  LicensesManage = 'licenses.manage',
  LicensesAssign = 'licenses.assign',
  EmailsResend = 'emails.resend',
  EmailsFixPending = 'emails.fix-pending',
  WebhooksManage = 'webhooks.manage',
  ApiTokensManage = 'api-tokens.manage',
  MarketplacesManage = 'marketplaces.manage',
  ReviewsManage = 'reviews.manage',
}

export enum Role {
  Admin = 'admin',
  Operator = 'operator',
  ShopManager = 'shop-manager',
}

const ALL = Object.values(Permission);

const OPERATOR_DENIED = new Set<Permission>([
  Permission.SettingsAccess,
  Permission.SystemCleanup,
  Permission.AdminResetOperator,
  Permission.AdminCreateShopManager,
  Permission.AdminDeactivateUser,
  Permission.RedemptionsDelete,
  Permission.ExportRedeemedData,
  Permission.ExportUnredeemedVouchers,
  Permission.EmailsFixPending,
  Permission.WebhooksManage,
  Permission.ApiTokensManage,
  Permission.MarketplacesManage,
]);

/**
 * The role matrix. A role not listed here has no permission at all. Shop managers see the dashboard only:
 * no code lists (`vouchers.view`) and no readable licence keys (`licenses.view`).
 */
export const ROLE_PERMISSIONS: Readonly<Record<Role, readonly Permission[]>> = {
  [Role.Admin]: ALL,
  [Role.Operator]: ALL.filter((p) => !OPERATOR_DENIED.has(p)),
  [Role.ShopManager]: [Permission.DashboardView],
};

/**
 * What an integration's API token may hold: the data permissions. Never settings, cleanup, accounts, webhooks and
 * marketplaces (configuration that sends data elsewhere) or tokens themselves (docs/product.md §22.3).
 */
export const TOKEN_PERMISSIONS: readonly Permission[] = ALL.filter(
  (p) =>
    ![
      Permission.SettingsAccess,
      Permission.SystemCleanup,
      Permission.AdminResetOperator,
      Permission.AdminCreateShopManager,
      Permission.AdminDeactivateUser,
      Permission.WebhooksManage,
      Permission.ApiTokensManage,
      Permission.MarketplacesManage,
    ].includes(p),
);

export function permissionsOf(role: string): Permission[] {
  return [...(ROLE_PERMISSIONS[role as Role] ?? [])];
}
