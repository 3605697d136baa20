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

/**
 * Every change the app makes, by its RTK Query mutation's name (or, for the uploads and downloads that do
 * not go through RTK Query, a name of their own), and what it makes stale. The one table: each mutation's
 * `invalidatesTags` is `invalidatesFor(name)`, and `app/invalidation.test.ts` fails for a mutation that is
 * missing here or refreshes anything else.
 */
export const CHANGES = {
  // Products tab: the template editor, the upload and void controls (XMLHttpRequest, `VoucherUpload`, `VoidCodesDialog`).
  updateEmailTemplate: data(),
  sendTestEmail: [],
  uploadVoucherCodes: data('codes'),
  voidVoucherCodes: data('codes'),
  // Voucher codes (page and modal).
  deleteVoucherCode: data('codes'),
  deleteVoucherCodes: data('codes'),
  // Licence Manager: a key's state moves the pool line of its product card.
  createLicenseKey: data('keys'),
  updateLicenseKey: data('keys'),
  deleteLicenseKey: data('keys'),
  // Redemptions: a deleted redemption leaves its code redeemed without a customer (the codes lists show it).
  resendEmail: data(),
  assignLicense: data('keys'),
  bulkAssignLicense: data('keys'),
  deleteRedemption: data('codes'),
  bulkDeleteRedemptions: data('codes'),
  fixPendingEmails: data('keys'),
  /** The redemption exports (downloads, `useRedemptionExports`) mark what they export as exported. */
  exportRedemptions: data(),
  // Settings.
  cleanSystem: data('codes', 'keys'),
  createWebhook: ['webhooks'],
  deleteWebhook: ['webhooks'],
  sendTestWebhook: ['webhooks'],
  resumeWebhook: ['webhooks'],
  createApiToken: ['apiTokens'],
  revokeApiToken: ['apiTokens'],
  // Account and security: nothing the console lists, except the user itself and its sessions.
  login: [],
  logout: [],
  changePassword: [],
  resetOperator: [],
  setupTwoFactor: [],
  enableTwoFactor: ['me'],
  disableTwoFactor: ['me'],
  regenerateRecoveryCodes: [],
  endSession: ['sessions'],
  endOtherSessions: ['sessions'],
  // Public pages: no console data is cached there.
  redeemVoucher: [],
  resendOrderEmail: [],
  // The licence centre (`/my-licences`): its list is read again by the page itself, never cached for the console.
  requestCustomerLink: [],
  openCustomerSession: [],
  resendCustomerLicence: [],
  eraseCustomerData: [],
} satisfies Record<string, Stale[]>;

export type Change = keyof typeof CHANGES;

/** The tag types a change invalidates (whole types: every list, page and detail of what it changed). */
export function invalidatesFor(change: Change): TagType[] {
  return (CHANGES[change] as Stale[]).map((stale) => TAG_OF[stale]);
}
