import { api } from '../../app/api';
import type { RedeemVoucherRequest } from './redeemRules';
import type * as Api from '../../api/generated';

export type RedeemVoucherResponse = Api.RedeemResponse;

export const redeemApi = api.injectEndpoints({
  endpoints: (build) => ({
    // The form's Idempotency-Key (idempotencyKey.ts): only a repeat carrying it gets a success token again.
    redeemVoucher: build.mutation<RedeemVoucherResponse, { body: RedeemVoucherRequest; idempotencyKey: string }>({
      query: ({ body, idempotencyKey }) => ({
        url: 'redeem-voucher',
        method: 'POST',
        body,
        headers: { 'Idempotency-Key': idempotencyKey },
      }),
    }),
  }),
});

export const { useRedeemVoucherMutation } = redeemApi;

/** docs/product.md §10.7: a product name containing "mac" (any case) is a Mac product. */
export function isMacProduct(productName: string | undefined): boolean {
  return !!productName && productName.toLowerCase().includes('mac');
}

export function successPath(productName: string | undefined, token: string): string {
  return `/success/${isMacProduct(productName) ? 'mac' : 'windows'}?token=${encodeURIComponent(token)}`;
}
