import { createHmac, timingSafeEqual } from 'crypto';

/** The signing of docs/product.md §24.2, both directions. */
export const TIMESTAMP_HEADER = 'X-Timestamp';
export const SIGNATURE_HEADER = 'X-Signature';

/** How far a signed timestamp may be from now, either way. */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** `sha256=<hex of HMAC-SHA256(secret, "<timestamp>.<raw body>")>`. */
export function marketplaceSignature(secret: string, unixSeconds: number, rawBody: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(`${unixSeconds}.`).update(rawBody).digest('hex');
  return `sha256=${mac}`;
}

/** The two headers of a signed request or answer. */
export function signedHeaders(secret: string, unixSeconds: number, rawBody: string | Buffer): Record<string, string> {
  return {
    [TIMESTAMP_HEADER]: String(unixSeconds),
    [SIGNATURE_HEADER]: marketplaceSignature(secret, unixSeconds, rawBody),
  };
}

/**
 * True when `signature` is the body's signature under `secret` for `timestamp`, and `timestamp` (unix seconds, digits
 * only) is within SIGNATURE_TOLERANCE_SECONDS of `nowSeconds`. Compared in constant time.
 */
export function verifyMarketplaceSignature(
  secret: string,
  timestamp: string | undefined,
  signature: string | undefined,
  rawBody: string | Buffer,
  nowSeconds: number,
): boolean {
  if (!timestamp || !signature || !/^\d{1,12}$/.test(timestamp)) return false;
  const ts = Number(timestamp);
  if (Math.abs(nowSeconds - ts) > SIGNATURE_TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(marketplaceSignature(secret, ts, rawBody), 'utf8');
  const given = Buffer.from(signature.trim(), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
