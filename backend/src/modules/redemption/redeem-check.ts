/**
 * What a check made before a code is claimed may answer (docs/product.md §24.6 "Live check at redeem"): go on and claim
 * it, or answer as for an unknown, a redeemed or a void code, or that the code cannot be confirmed now (503).
 */
export type RedeemCheckVerdict = 'claim' | 'unknown' | 'redeemed' | 'void' | 'unconfirmed';

/**
 * A check of the code before the redemption's statement claims it, provided by another module (the marketplace
 * connections) when it has one to make. `beforeClaim` answers undefined, synchronously, when there is nothing to ask
 * (every product without a connection): the redemption then runs exactly as without a check.
 */
export abstract class RedeemCheck {
  abstract beforeClaim(code: string): Promise<RedeemCheckVerdict> | undefined;
}
