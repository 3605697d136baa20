import { useCallback } from 'react';
import { useAccessToken } from './useAccessToken';
import { useAuthControllerMeQuery } from '../../api';

/**
 * The signed-in user's role and permissions from `GET /api/admin/me` (docs/product.md §7.4). Controls the server
 * would refuse are hidden with `can(permission)`.
 */
export function usePermissions(): { role: string | null; permissions: string[]; can: (permission: string) => boolean } {
  const token = useAccessToken();
  const { data } = useAuthControllerMeQuery(undefined, { skip: !token });
  const permissions = data?.permissions ?? EMPTY;
  const can = useCallback((permission: string) => permissions.includes(permission), [permissions]);
  return { role: data?.role ?? null, permissions, can };
}

const EMPTY: string[] = [];

/** docs/product.md §7.4 permission names the console gates on. */
export const PERMISSIONS = {
  vouchersView: 'vouchers.view',
  licensesView: 'licenses.view',
  vouchersVoid: 'vouchers.void',
  webhooksManage: 'webhooks.manage',
  apiTokensManage: 'api-tokens.manage',
  marketplacesManage: 'marketplaces.manage',
  settingsAccess: 'settings.access',
  reviewsManage: 'reviews.manage',
  systemCleanup: 'system.cleanup',
  resetOperator: 'admin.reset-operator',
  redemptionsDelete: 'redemptions.delete',
  exportRedeemedData: 'export.redeemed-data',
  exportUnredeemedVouchers: 'export.unredeemed-vouchers',
  exportRedeemedVouchers: 'export.redeemed-vouchers',
  vouchersUpload: 'vouchers.upload',
  vouchersDelete: 'vouchers.delete',
  productsEdit: 'products.edit',
  licensesManage: 'licenses.manage',
  licensesAssign: 'licenses.assign',
  emailsResend: 'emails.resend',
  emailsFixPending: 'emails.fix-pending',
} as const;
