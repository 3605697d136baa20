import type * as Api from '../../api';

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
const TAB_FILTERS: Record<VoucherTab, Pick<Api.VoucherControllerListApiArg, 'redeemedOnly' | 'status'>> = {
  all: {},
  unredeemed: { redeemedOnly: 'false' },
  redeemed: { redeemedOnly: 'true' },
  void: { status: 'void' },
};

/** A tab's page as the API takes it; docs/product.md §6.5: search text is trimmed and sent only if non-empty. */
export function voucherCodesArg({
  productId,
  tab,
  limit,
  page,
  search,
}: VoucherCodesArgs): Api.VoucherControllerListApiArg {
  return { id: productId, limit, page, ...TAB_FILTERS[tab], search: search?.trim() || undefined };
}

/** A code that may be selected and deleted: neither redeemed nor void. */
export function isAvailable(code: Pick<VoucherCode, 'isRedeemed' | 'status'>): boolean {
  return code.status ? code.status === 'available' : !code.isRedeemed;
}
