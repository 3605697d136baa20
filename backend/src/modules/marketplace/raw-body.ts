import type { IncomingMessage } from 'http';

/** The inbound routes whose signature covers the raw body (docs/product.md §24.2). */
const SIGNED_ROUTE = /^\/api\/marketplaces\/[^/?#]+\/events(?:[?#]|$)/;

/** A request of a signed route, with the bytes its JSON body was parsed from. */
export type RawBodyRequest = IncomingMessage & { rawBody?: Buffer };

/**
 * For the JSON parser's `verify` hook (app.factory.ts, beside the nesting check): keeps the raw body of a signed
 * marketplace request on it, so the signature is checked over the exact bytes sent; every other request keeps none.
 */
export function keepSignedRawBody(req: IncomingMessage, body: Buffer): void {
  if (SIGNED_ROUTE.test(req.url ?? '')) (req as RawBodyRequest).rawBody = body;
}
