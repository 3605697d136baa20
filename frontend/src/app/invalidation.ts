import type { generatedApi } from '../api/generated/endpoints';
import type { TagType } from './api';

/** What a change can make stale: each is read by the queries that provide its tag type. */
export type Stale =
  'stats' | 'products' | 'redemptions' | 'codes' | 'keys' | 'me' | 'sessions' | 'webhooks' | 'apiTokens';

export const TAG_OF: Record<Stale, TagType> = {
  stats: 'Stats',
  products: 'Products',
  redemptions: 'Redemptions',
  codes: 'VoucherCodes',
  keys: 'LicenseKeys',
  me: 'Me',
  sessions: 'Sessions',
  webhooks: 'Webhooks',
  apiTokens: 'ApiTokens',
};

/**
 * docs/product.md §8.1: after a change the statistics, products and redemptions are read again; on top of those, a change
 * refreshes the voucher codes and licence keys it touches (docs/product.md §3.16).
 */
const data = (...also: Array<'codes' | 'keys'>): Stale[] => ['stats', 'products', 'redemptions', ...also];

/** The generated mutations (`api/generated/endpoints.ts`), by name. */
type Endpoints = typeof generatedApi.endpoints;
export type MutationName = {
  [K in keyof Endpoints]: Endpoints[K] extends { useMutation: unknown } ? K : never;
}[keyof Endpoints];

/** The changes that do not go through RTK Query: the XMLHttpRequest uploads and the file downloads. */
export const NOT_RTK = ['uploadVoucherCodes', 'voidVoucherCodes', 'exportRedemptions'] as const;

/**
 * Every change the app can make, by its mutation's name (the operation's, as generated), and for the uploads and
 * downloads that do not go through RTK Query a name of their own: what it makes stale. The one table: `api/index.ts`
 * gives each mutation `invalidatesTags: invalidatesFor(name)`, the compiler fails a mutation missing here, and
 * `app/invalidation.test.ts` fails one that refreshes anything else.
 */
export const CHANGES = {
  // Products tab: the template editor, the upload and void controls (XMLHttpRequest, `VoucherUpload`, `VoidCodesDialog`).
  productControllerCreate: data(),
  productControllerUpdate: data(),
  productControllerTestEmail: [],
  uploadVoucherCodes: data('codes'),
  voidVoucherCodes: data('codes'),
  // Voucher codes (page and modal).
  voucherControllerDeleteOne: data('codes'),
  voucherControllerDeleteMany: data('codes'),
  // Licence Manager: a key's state moves the pool line of its product card.
  licenseKeyControllerCreate: data('keys'),
  licenseKeyControllerUpdate: data('keys'),
  licenseKeyControllerRemove: data('keys'),
  // Redemptions: a deleted redemption leaves its code redeemed without a customer (the codes lists show it).
  redemptionAdminControllerResend: data(),
  redemptionAdminControllerAssign: data('keys'),
  redemptionAdminControllerBulkAssign: data('keys'),
  redemptionAdminControllerRemove: data('codes'),
  redemptionAdminControllerBulkDelete: data('codes'),
  redemptionMaintenanceControllerFixPending: data('keys'),
  /** The redemption exports (downloads, `useRedemptionExports`) mark what they export as exported. */
  exportRedemptions: data(),
  // Settings.
  redemptionMaintenanceControllerCleanup: data('codes', 'keys'),
  webhookControllerCreate: ['webhooks'],
  webhookControllerRemove: ['webhooks'],
  webhookControllerSendTest: ['webhooks'],
  webhookControllerResume: ['webhooks'],
  apiTokensControllerCreate: ['apiTokens'],
  apiTokensControllerRevoke: ['apiTokens'],
  // Marketplace connections: Settings → Marketplaces reads its list again itself after each change; what their events
  // load or void is announced in real time.
  marketplaceControllerCreate: [],
  marketplaceControllerUpdate: [],
  marketplaceControllerRemove: [],
  marketplaceControllerRetryDead: [],
  // Risk rules and blocklist (API only so far: no console screen lists them).
  riskControllerSaveRules: [],
  riskControllerAdd: [],
  riskControllerRemove: [],
  // Review decisions (the Review tab): an approval assigns a key, a refusal refunds the code.
  redemptionReviewControllerApprove: data('keys'),
  redemptionReviewControllerRefuse: data('codes'),
  // Account and security: nothing the console lists, except the user itself and its sessions.
  authControllerLogin: [],
  authControllerLogout: [],
  authControllerChangePassword: [],
  authControllerResetOperator: [],
  authControllerCreateShopManager: [],
  authControllerDeactivateUser: [],
  authControllerSetupTwoFactor: [],
  authControllerEnableTwoFactor: ['me'],
  authControllerDisableTwoFactor: ['me'],
  authControllerRegenerateRecoveryCodes: [],
  sessionsControllerRevoke: ['sessions'],
  sessionsControllerRevokeOthers: ['sessions'],
  // Public pages: no console data is cached there.
  redemptionControllerRedeem: [],
  redemptionControllerResendOrderEmail: [],
  // The licence centre (`/my-licences`): its list is read again by the page itself, never cached for the console.
  customerCentreControllerRequestAccess: [],
  customerCentreControllerOpenSession: [],
  customerCentreControllerResend: [],
  customerCentreControllerErase: [],
} satisfies Record<MutationName | (typeof NOT_RTK)[number], Stale[]>;

export type Change = keyof typeof CHANGES;

/** The tag types a change invalidates (whole types: every list, page and detail of what it changed). */
export function invalidatesFor(change: Change): TagType[] {
  return (CHANGES[change] as Stale[]).map((stale) => TAG_OF[stale]);
}
