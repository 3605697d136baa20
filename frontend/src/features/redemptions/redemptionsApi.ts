import type { Pagination } from '../../components/list/useListState';
import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';

export type EmailStatus = 'pending' | 'sent' | 'failed';
export type EmailStatusFilter = 'all' | EmailStatus;

export interface AdminRedemption {
  id: string;
  voucherCodeId: string;
  customerId: string;
  productId: string;
  /** docs/product.md §4.4: an object with code, or a plain string. */
  voucherCode: { id?: string; code: string } | string;
  customer: {
    id: string;
    firstName: string;
    lastName: string;
    email: string;
    phone?: string | null;
    country?: string | null;
    zipCode?: string | null;
  };
  product: { id: string; name: string };
  emailStatus: string;
  isManualProcessing?: boolean;
  redeemedAt: string;
  exported: boolean;
  exportedAt: string | null;
  /** docs/product.md §19.3: its code was refunded after redemption (the customer keeps the key). */
  refundedAt?: string | null;
  /** The customer erased their personal data in the licence centre: names and e-mail are empty (docs/support.md). */
  erasedAt?: string | null;
  assignedLicenseKey: { licenseKey: string; downloadLink: string } | null;
}

export type { Pagination };

export interface RedemptionsPage {
  redemptions: AdminRedemption[];
  pagination: Pagination;
}

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

const LIST = { type: 'Redemptions' as const, id: 'LIST' };

/** docs/product.md §20.3: one event of `GET /api/redemptions/{id}/history`. */
export interface RedemptionHistoryEvent {
  at: string;
  type:
    | 'redeemed'
    | 'redeem-repeated'
    | 'key-assigned'
    | 'email-queued'
    | 'email-sent'
    | 'email-failed'
    | 'email-resent'
    | 'exported'
    | 'refunded'
    | 'erased'
    | 'deleted';
  /** A staff username, "Customer" or "System"; null when the audit trail does not say. */
  actor: string | null;
  description: string;
  provider: string | null;
  error: string | null;
  /** Masked by the server for callers without licenses.view. */
  licenseKey: string | null;
}

export interface RedemptionHistory {
  redemptionId: string;
  exists: boolean;
  /** Oldest first. */
  events: RedemptionHistoryEvent[];
}

export const redemptionsApi = api.injectEndpoints({
  endpoints: (build) => ({
    getRedemptions: build.query<RedemptionsPage, RedemptionsQuery>({
      query: (q) => ({ url: 'redemptions', params: redemptionListParams(q) }),
      providesTags: (result) => [
        LIST,
        ...(result?.redemptions ?? []).map((r) => ({ type: 'Redemptions' as const, id: r.id })),
      ],
    }),
    getRedemption: build.query<AdminRedemption, string>({
      query: (id) => `redemptions/${id}`,
      providesTags: (_r, _e, id) => [{ type: 'Redemptions', id }],
    }),
    // The redemption's own tag: a resend or an assignment refreshes its history with its details.
    getRedemptionHistory: build.query<RedemptionHistory, string>({
      query: (id) => `redemptions/${id}/history`,
      providesTags: (_r, _e, id) => [{ type: 'Redemptions', id }],
    }),
    resendEmail: build.mutation<{ success: boolean; message: string }, string>({
      query: (id) => ({ url: `redemptions/${id}/resend-email`, method: 'POST' }),
      invalidatesTags: invalidatesFor('resendEmail'),
    }),
    assignLicense: build.mutation<AdminRedemption, { id: string; licenseKey: string; downloadLink: string }>({
      query: ({ id, ...body }) => ({ url: `redemptions/${id}/assign-license`, method: 'POST', body }),
      invalidatesTags: invalidatesFor('assignLicense'),
    }),
    bulkAssignLicense: build.mutation<
      { successCount: number },
      { redemptionIds: string[]; licenseKey: string; downloadLink: string }
    >({
      query: (body) => ({ url: 'redemptions/bulk-assign-license', method: 'POST', body }),
      invalidatesTags: invalidatesFor('bulkAssignLicense'),
    }),
    deleteRedemption: build.mutation<{ success: boolean; message: string }, string>({
      query: (id) => ({ url: `redemptions/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('deleteRedemption'),
    }),
    bulkDeleteRedemptions: build.mutation<{ deletedCount: number }, string[]>({
      query: (redemptionIds) => ({ url: 'redemptions/bulk-delete', method: 'POST', body: { redemptionIds } }),
      invalidatesTags: invalidatesFor('bulkDeleteRedemptions'),
    }),
    fixPendingEmails: build.mutation<{ fixedCount: number; assignedCount: number }, void>({
      query: () => ({ url: 'admin/fix-pending-emails', method: 'POST' }),
      invalidatesTags: invalidatesFor('fixPendingEmails'),
    }),
  }),
});

export const {
  useGetRedemptionsQuery,
  useGetRedemptionQuery,
  useGetRedemptionHistoryQuery,
  useResendEmailMutation,
  useAssignLicenseMutation,
  useBulkAssignLicenseMutation,
  useDeleteRedemptionMutation,
  useBulkDeleteRedemptionsMutation,
  useFixPendingEmailsMutation,
} = redemptionsApi;

/** docs/product.md §4.4: voucherCode is an object with code, or a plain string. */
export function voucherCodeOf(r: Pick<AdminRedemption, 'voucherCode'>): string {
  return typeof r.voucherCode === 'string' ? r.voucherCode : (r.voucherCode?.code ?? '');
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
