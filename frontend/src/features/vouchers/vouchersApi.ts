import { api } from '../../app/api';

export interface VoucherCode {
  id: string;
  code: string;
  isRedeemed: boolean;
  createdAt: string;
  redeemedAt: string | null;
  redemption: {
    id: string;
    redeemedAt: string;
    emailStatus: string;
    customer: { id: string; firstName: string; lastName: string; email: string };
  } | null;
}

export interface VoucherCodePage {
  codes: VoucherCode[];
  totalCount: number;
  hasMore: boolean;
}

export type VoucherTab = 'all' | 'unredeemed' | 'redeemed';

export interface VoucherCodesArgs {
  productId: string;
  tab: VoucherTab;
  limit: number;
  offset: number;
  search?: string;
}

const REDEEMED_ONLY: Record<VoucherTab, string | undefined> = { all: undefined, unredeemed: 'false', redeemed: 'true' };

/** Everything a voucher change can move: the lists, the product counts and the stats. */
const AFTER_CHANGE = [
  { type: 'VoucherCodes', id: 'LIST' },
  { type: 'Products', id: 'LIST' },
  { type: 'Stats', id: 'LIST' },
] as const;

export const vouchersApi = api.injectEndpoints({
  endpoints: (build) => ({
    voucherCodes: build.query<VoucherCodePage, VoucherCodesArgs>({
      query: ({ productId, tab, limit, offset, search }) => {
        const params: Record<string, string> = { limit: String(limit), offset: String(offset) };
        const redeemedOnly = REDEEMED_ONLY[tab];
        if (redeemedOnly) params.redeemedOnly = redeemedOnly;
        // SPEC §5: search text is trimmed and sent only if non-empty.
        const text = search?.trim();
        if (text) params.search = text;
        return { url: `products/${encodeURIComponent(productId)}/voucher-codes-detailed`, params };
      },
      providesTags: [{ type: 'VoucherCodes', id: 'LIST' }],
    }),
    deleteVoucherCode: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `voucher-codes/${id}`, method: 'DELETE' }),
      invalidatesTags: [...AFTER_CHANGE],
    }),
    deleteVoucherCodes: build.mutation<
      { message: string; deletedCount: number },
      { productId: string; deleteType: 'selected'; voucherCodeIds: string[] } | { productId: string; deleteType: 'all-unredeemed' }
    >({
      query: ({ productId, ...body }) => ({ url: `products/${productId}/voucher-codes`, method: 'DELETE', body }),
      invalidatesTags: [...AFTER_CHANGE],
    }),
  }),
});

export const { useVoucherCodesQuery, useDeleteVoucherCodeMutation, useDeleteVoucherCodesMutation } = vouchersApi;
