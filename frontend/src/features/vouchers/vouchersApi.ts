import { api } from '../../app/api';
import { invalidatesFor } from '../../app/invalidation';
import type * as Api from '../../api/generated';

export type VoucherCode = Api.VoucherCodeResponse;

export type VoucherCodePage = Api.VoucherCodePageResponse;

export type VoucherTab = 'all' | 'unredeemed' | 'redeemed' | 'void';

export interface VoucherCodesArgs {
  productId: string;
  tab: VoucherTab;
  limit: number;
  /** 1-based. */
  page: number;
  search?: string;
}

/** docs/product.md §20.1: an upload, a void file, or the codes that came by no upload ("before batches"). */
export type UploadBatch = Api.UploadBatchResponse;

/** The list filter of each tab: the API's `redeemedOnly` for its three tabs, `status=void` for the Void tab. */
const TAB_PARAMS: Record<VoucherTab, Record<string, string>> = {
  all: {},
  unredeemed: { redeemedOnly: 'false' },
  redeemed: { redeemedOnly: 'true' },
  void: { status: 'void' },
};

/** A code that may be selected and deleted: neither redeemed nor void. */
export function isAvailable(code: Pick<VoucherCode, 'isRedeemed' | 'status'>): boolean {
  return code.status ? code.status === 'available' : !code.isRedeemed;
}

export const vouchersApi = api.injectEndpoints({
  endpoints: (build) => ({
    voucherCodes: build.query<VoucherCodePage, VoucherCodesArgs>({
      query: ({ productId, tab, limit, page, search }) => {
        const params: Record<string, string> = { limit: String(limit), page: String(page), ...TAB_PARAMS[tab] };
        // docs/product.md §6.5: search text is trimmed and sent only if non-empty.
        const text = search?.trim();
        if (text) params.search = text;
        return { url: `products/${encodeURIComponent(productId)}/voucher-codes-detailed`, params };
      },
      providesTags: [{ type: 'VoucherCodes', id: 'LIST' }],
    }),
    /**
     * A product's upload batches with live counts. Every change of codes (upload, void, delete: `VoucherCodes`) and
     * of redemptions (redeem, export: `Redemptions`, also after their real-time events) moves them.
     */
    uploadBatches: build.query<UploadBatch[], string>({
      query: (productId) => `products/${encodeURIComponent(productId)}/batches`,
      providesTags: [
        { type: 'VoucherCodes', id: 'LIST' },
        { type: 'Redemptions', id: 'LIST' },
      ],
    }),
    deleteVoucherCode: build.mutation<{ message: string }, string>({
      query: (id) => ({ url: `voucher-codes/${id}`, method: 'DELETE' }),
      invalidatesTags: invalidatesFor('deleteVoucherCode'),
    }),
    deleteVoucherCodes: build.mutation<
      { message: string; deletedCount: number },
      | { productId: string; deleteType: 'selected'; voucherCodeIds: string[] }
      | { productId: string; deleteType: 'all-unredeemed' }
    >({
      query: ({ productId, ...body }) => ({ url: `products/${productId}/voucher-codes`, method: 'DELETE', body }),
      invalidatesTags: invalidatesFor('deleteVoucherCodes'),
    }),
  }),
});

export const {
  useVoucherCodesQuery,
  useUploadBatchesQuery,
  useDeleteVoucherCodeMutation,
  useDeleteVoucherCodesMutation,
} = vouchersApi;
