import type * as Api from '../../api';
import type { Pagination } from '../../components/list/useListState';

export type EmailStatus = Api.RedemptionResponse['emailStatus'];
export type EmailStatusFilter = 'all' | EmailStatus;

export type AdminRedemption = Api.RedemptionResponse;

export type { Pagination };

export type RedemptionsPage = Api.RedemptionListResponse;

export interface RedemptionsQuery {
  page: number;
  limit: number;
  emailStatus: EmailStatusFilter;
  showExported: boolean;
  /** Already trimmed; sent only when non-empty (docs/product.md §6.5 Other). */
  search: string;
}

/** The query string of a redemption list (and of the matching export): empty search and "all" are left out. */
export function redemptionListParams(
  q: Omit<RedemptionsQuery, 'page' | 'limit'> & Partial<Pick<RedemptionsQuery, 'page' | 'limit'>>,
) {
  const params: Record<string, string> = {};
  if (q.page !== undefined) params.page = String(q.page);
  if (q.limit !== undefined) params.limit = String(q.limit);
  if (q.emailStatus !== 'all') params.emailStatus = q.emailStatus;
  params.showExported = String(q.showExported);
  const search = q.search.trim();
  if (search) params.search = search;
  return params;
}

/** The list's arguments as the API takes them: "all" and an empty search are left out. */
export function redemptionsArg(q: RedemptionsQuery): Api.RedemptionAdminControllerListApiArg {
  const search = q.search.trim();
  return {
    page: q.page,
    limit: q.limit,
    emailStatus: q.emailStatus === 'all' ? undefined : q.emailStatus,
    showExported: q.showExported,
    search: search || undefined,
  };
}

/** docs/product.md §20.3: one event of `GET /api/redemptions/{id}/history`. */
export type RedemptionHistoryEvent = Api.HistoryEventResponse;

export type RedemptionHistory = Api.RedemptionHistoryResponse;

/** The redemption's voucher code (an object with its id and code, as the API declares it). */
export function voucherCodeOf(r: Pick<AdminRedemption, 'voucherCode'>): string {
  return r.voucherCode.code;
}

export const MANUAL_PREFIX = 'MANUAL_';

/** docs/product.md §3.7: a key with the MANUAL_ prefix is shown without it. */
export function displayLicenseKey(key: string | null | undefined): string {
  if (!key) return '';
  return key.startsWith(MANUAL_PREFIX) ? key.slice(MANUAL_PREFIX.length) : key;
}

/** docs/product.md §6.3 licence assignment (single and bulk): the message of the first empty field after trim, if any. */
export function invalidAssignment(licenseKey: string, downloadLink: string): string | undefined {
  if (!licenseKey.trim()) return 'License key is required.';
  if (!downloadLink.trim()) return 'Download link is required.';
  return undefined;
}

/** docs/product.md §10.7: a product name containing "mac" (any case) is a Mac product. */
export function isMacProduct(name: string | null | undefined): boolean {
  return !!name && name.toLowerCase().includes('mac');
}
