/**
 * What the write paths state once they happened (docs/architecture.md "Events and who listens"). A service publishes
 * one event through `DomainEvents.publish`; the audit, realtime and webhook modules listen in their `*.listener.ts`.
 *
 * An event that leaves a security_audit_log row is named as that row's action, and its payload starts with the row's
 * facts (`Fact`): the audit listener writes them as they are. What the other listeners need besides is named after
 * them. Events without a row (a redemption, an order e-mail's outcome, a low pool) carry only their own facts.
 */

/** What an audit row says of an action: whether it succeeded, who did it and from where, on what. */
export interface Fact {
  success: boolean;
  adminUserId?: string | null;
  resource?: string | null;
  resourceId?: string | null;
  ipAddress?: string | null;
  userAgent?: string | null;
  details?: Record<string, unknown> | null;
}

/** The kinds of export (`ExportJob.kind`); each is audited as `export.<kind>`. */
export const EXPORT_KINDS = [
  'selected-redemptions',
  'redeemed-vouchers',
  'redeemed-voucher-codes',
  'unredeemed-vouchers',
  'batch',
  'marketplace-reconciliation',
] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** The codes a void changed (docs/product.md §20.4 `voucher.voided`: this is its webhook payload). */
export interface VouchersVoided {
  productId: string;
  productName: string;
  voided: number;
  refundedAfterRedemption: number;
  /** Up to the audit's limit of codes. */
  refundedCodes: string[];
  unknown: number;
  alreadyVoid: number;
}

/** Audited events whose row is all there is to them: security, accounts, settings. */
export const AUDIT_ONLY_EVENTS = [
  'login.success',
  'login.failure',
  'login.locked',
  'login.2fa-required',
  'login.2fa-failure',
  'login.recovery-code',
  'login.sso-failure',
  'logout',
  'session.refresh-reuse',
  'session.revoke',
  'session.revoke-others',
  'password.change',
  'operator.reset-password',
  'admin-user.create',
  'admin-user.deactivate',
  '2fa.setup',
  '2fa.enable',
  '2fa.disable',
  '2fa.recovery-codes',
  'api-token.create',
  'api-token.revoke',
  'api-token.request',
  'permission.denied',
  'product.test-email',
  'license-key.create',
  'license-key.activate',
  'license-key.deactivate',
  'license-key.delete',
  'redemption.repeat',
  'system.retention',
  'customer.access-link',
  'customer.access-link-limit',
  'customer.data-export',
  'webhook.create',
  'webhook.delete',
  'webhook.resume',
  'webhook.pause',
  'marketplace.create',
  'marketplace.update',
  'marketplace.delete',
  'marketplace.retry-dead',
  // A refund or cancellation a marketplace sent, applied (docs/product.md §24.8): its figures.
  'marketplace.refund',
  // The risk rules (docs/product.md §25.1): settings, blocklist, and a redemption a rule refused (the rules it matched).
  'risk.rules-update',
  'risk.blocklist-add',
  'risk.blocklist-remove',
  'redemption.risk-refused',
] as const;

type AuditOnly = { [K in (typeof AUDIT_ONLY_EVENTS)[number]]: Fact };
type Exports = { [K in ExportKind as `export.${K}`]: Fact & { exportedRows?: number } };

export interface DomainEventMap extends AuditOnly, Exports {
  /** A code redeemed (the public redeem): not audited. */
  'redemption.created': {
    redemptionId: string;
    voucherCode: string;
    productId: string;
    productName: string;
    /** The product's keys come from the pool: the pool module checks its forecast (whether or not a key was left). */
    isLicenseManaged: boolean;
    isManualProcessing: boolean;
    /** A pool key was handed out with it (a licence assignment). */
    poolKeyAssigned: boolean;
  };
  /** A risk rule held a redemption for review (docs/product.md §25.2), after `redemption.created`: not audited. */
  'redemption.held': {
    redemptionId: string;
    voucherCode: string;
    productId: string;
    productName: string;
    /** The rules it matched. */
    rules: string[];
  };
  /** Staff approved a held redemption (docs/product.md §25.3); `keyAssigned` false: it waits for a pool key. */
  'review.approve': Fact & {
    redemptionId: string;
    voucherCode: string;
    productId: string;
    productName: string;
    keyAssigned: boolean;
  };
  /** Staff refused a held redemption (docs/product.md §25.3): its code refunded; what was blocklisted. */
  'review.refuse': Fact & {
    redemptionId: string;
    voucherCode: string;
    productName: string;
    blocklisted: Array<'email' | 'address' | 'phone'>;
  };
  /** An admin queued a redemption's e-mail again (or could not: `success` false, no `voucherCode`). */
  'redemption.resend-email': Fact & { voucherCode?: string };
  /** A customer asked for the order e-mail again (refused over the limit: `success` false). */
  'redemption.customer-resend': Fact & { voucherCode?: string };
  'redemption.assign-license': Fact & { redemptionId: string; voucherCode: string };
  'redemption.bulk-assign-license': Fact & { assignedIds: string[] };
  'redemption.delete': Fact & { voucherCode: string };
  'redemption.bulk-delete': Fact & { deletedCount: number };
  /** Fix Pending Emails: waiting redemptions that got a pool key (and their products, once each), e-mails queued. */
  'emails.fix-pending': Fact & { poolAssignedIds: string[]; poolProductIds: string[]; queuedCount: number };
  /** Keys joined these products' pools (a key added, or set active): their waiting redemptions may get one. */
  'license.keys-added': { productIds: string[] };
  /** Keys added to a pool went to its waiting redemptions (backorders), oldest first; their e-mails are queued. */
  'redemption.backorders-filled': { redemptionIds: string[]; productIds: string[] };
  'system.cleanup': Fact;
  /** An address blocked: for failed logins, or (`guessing`) for guessing voucher codes (docs/product.md §18.2). */
  'ip.blocked': Fact & { guessing?: { group: string; minutes: number; failures: number } };
  'product.create': Fact & { productName: string };
  'product.update': Fact & { productName: string };
  'vouchers.upload': Fact & { productName?: string; inserted?: number };
  /**
   * Codes refunded after their redemption (a void, docs/product.md §19.3), published inside the void's transaction and
   * on its held client: the redemption module marks their redemptions refunded there, so the marks commit or roll back
   * with the void. Not audited (the void's `vouchers.void` row tells it).
   */
  'vouchers.refunded': { productId: string; codes: Array<{ voucherCodeId: string; code: string }> };
  /** A void; `changed` when it voided or refunded anything. */
  'vouchers.void': Fact & { changed?: VouchersVoided & { refundedRedemptions: number } };
  'vouchers.delete': Fact & { voucherCode?: string; productName?: string };
  'vouchers.bulk-delete': Fact & { productName: string; deletedCount: number };
  /** The licence centre's erasure (docs/product.md §21.3); `erased` is the webhook's payload (ids and time only). */
  'customer.erasure': Fact & {
    erased: { customerId: string; redemptionIds: string[]; erasedAt: Date };
    /** The erased address: the audit module forgets its client details (never leaves the process). */
    forget: { email: string };
  };
  /** The order e-mail went out. */
  'email.sent': { redemptionId: string; voucherCode: string };
  /** The order e-mail failed its last attempt (docs/product.md §20.4 `email.failed`: this is its webhook payload). */
  'email.failed': {
    redemptionId: string;
    voucherCode: string;
    attempts: number;
    errors: { provider: string; reason: string; smtpCode: number | null }[];
  };
  /** A report to a marketplace gave up after its retry window (docs/product.md §24.11 `marketplace.report.dead`). */
  'marketplace.report.dead': {
    connectionId: string;
    reportId: string;
    kind: string;
    redemptionId: string;
    code: string;
    attempts: number;
    lastError: string;
  };
  /** A product's pool forecast fell under its alert threshold (docs/product.md §20.4 `pool.low`). */
  'pool.low': {
    productId: string;
    productName: string;
    availableActivations: number;
    redeemedLast7Days: number;
    perDay: number;
    daysLeft: number | null;
  };
}

export type DomainEventName = keyof DomainEventMap;

/** Every event that writes an audit row (its action is the event's name). */
export const AUDITED_EVENTS = [
  ...AUDIT_ONLY_EVENTS,
  ...EXPORT_KINDS.map((kind) => `export.${kind}` as const),
  'redemption.resend-email',
  'redemption.customer-resend',
  'redemption.assign-license',
  'redemption.bulk-assign-license',
  'redemption.delete',
  'redemption.bulk-delete',
  'emails.fix-pending',
  'system.cleanup',
  'ip.blocked',
  'product.create',
  'product.update',
  'vouchers.upload',
  'vouchers.void',
  'vouchers.delete',
  'vouchers.bulk-delete',
  'customer.erasure',
  'review.approve',
  'review.refuse',
] as const satisfies readonly DomainEventName[];
export type AuditedEventName = (typeof AUDITED_EVENTS)[number];
