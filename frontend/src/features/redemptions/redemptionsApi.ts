import type { Pagination } from '../../components/list/useListState';
import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

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

const LIST = { type: 'Redemptions' as const, id: 'LIST' };

/** docs/product.md §20.3: one event of `GET /api/redemptions/{id}/history`. */
export type RedemptionHistoryEvent = Api.HistoryEventResponse;

export type RedemptionHistory = Api.RedemptionHistoryResponse;

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
