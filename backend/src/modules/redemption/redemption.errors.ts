import { HttpException } from '@nestjs/common';

export const REGION_MESSAGE =
  "We're sorry, but this service is currently not available in your region due to regulatory requirements.";

/** 451 with the body the redeem page recognises (docs/product.md §9.2, §11.3). */
export class GeoBlockedException extends HttpException {
  constructor() {
    super({ statusCode: 451, code: 'GEO_BLOCKED', error: 'Access Restricted', message: REGION_MESSAGE }, 451);
  }
}

export const REDEEM_MESSAGES = {
  unknownCode: 'Invalid voucher code. Please check the code and try again.',
  usedCode: 'This voucher code has already been redeemed.',
  /** A code voided by a refund before it was redeemed (docs/product.md §19.3): 410. */
  voidCode: 'This voucher code has been cancelled. Please contact support.',
  inactiveProduct: 'This product is currently not available for redemption.',
  alreadyIssued: 'A licence for this product has already been issued to this e-mail address.',
  invalidToken: 'Invalid or expired access token',
  /** The success page of a redemption refunded since (docs/product.md §19.3, §24.8): 410. */
  refundedOrder: 'This order has been refunded. Please contact support.',
  rateLimited: 'Too many redemption attempts. Please wait a minute and try again.',
  invalidIdempotencyKey: 'Invalid Idempotency-Key header',
  /** A connected product's live check got no answer and the connection refuses then (docs/product.md §24.6): 503. */
  unconfirmed: 'We cannot confirm this voucher right now. Please try again in a few minutes.',
} as const;

/** An Idempotency-Key the redeem page makes (128 random bits, hex) or any client's of the same kind. */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
