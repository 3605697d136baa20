/**
 * Secrets in logs (docs/product.md §18.4): what the request log keeps of a request. Success tokens in paths and query
 * strings, voucher codes, tokens, passwords and licence keys in bodies, and every header that carries a
 * credential are replaced by `[Redacted]`.
 */
export const REDACTED = '[Redacted]';

/**
 * Header names that carry credentials (matched case-insensitively, as Node lower-cases them). The redeem page's
 * Idempotency-Key is one: with code and e-mail it gets a success token again (docs/product.md §19.1).
 */
const CREDENTIAL_HEADER =
  /^(authorization|proxy-authorization|cookie|set-cookie)$|token|secret|api-?key|idempotency-key|password|signature|session/i;

/** Body and query fields that hold a secret or a voucher code (an admin search may be a whole code or key). */
const SECRET_FIELD =
  /^(voucherCode|code|codes|token|successToken|customerToken|accessToken|refreshToken|password|currentPassword|newPassword|confirmPassword|twoFactorCode|recoveryCode|recoveryCodes|secret|licenseKey|productKey|search)$/i;

/** `/api/success-token/<token>`, and token, code and search query parameters. */
export function redactUrl(url: string | undefined): string | undefined {
  if (!url) return url;
  // Most paths (`/api/redeem-voucher`) carry neither: no regular expression runs for them (issue 26).
  if (!url.includes('?') && !url.includes('&') && !/success-token/i.test(url)) return url;
  return url
    .replace(/(\/success-token\/)[^/?#]+/gi, `$1${REDACTED}`)
    .replace(
      /([?&](?:token|successToken|access_token|refreshToken|code|voucherCode|search)=)[^&#]*/gi,
      `$1${REDACTED}`,
    );
}

export function redactHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> | undefined {
  if (!headers) return headers;
  const redacted: Record<string, unknown> = {};
  for (const name of Object.keys(headers)) redacted[name] = CREDENTIAL_HEADER.test(name) ? REDACTED : headers[name];
  return redacted;
}

/** A body, query or params object with its secret fields redacted (one level deep, arrays of objects included). */
export function redactFields(value: unknown, depth = 0): unknown {
  if (!value || typeof value !== 'object' || depth > 3) return value;
  if (Array.isArray(value)) return value.map((item) => redactFields(item, depth + 1));
  return Object.fromEntries(
    Object.entries(value as Record<string, unknown>).map(([key, item]) => [
      key,
      SECRET_FIELD.test(key) ? REDACTED : redactFields(item, depth + 1),
    ]),
  );
}

interface SerializedRequest {
  id?: unknown;
  method?: string;
  url?: string;
  query?: unknown;
  headers?: Record<string, unknown>;
  remoteAddress?: string;
  remotePort?: number;
  raw?: { body?: unknown };
}

/** pino-http's request serializer (after pino-std-serializers'): the logged request without its secrets. */
export function redactRequest(req: SerializedRequest): Record<string, unknown> {
  const logged: Record<string, unknown> = {
    id: req.id,
    method: req.method,
    url: redactUrl(req.url),
    query: redactFields(req.query),
    // No params: the logger's own route (`{*path}`) puts the whole path there, token included; `url` has it redacted.
    headers: redactHeaders(req.headers),
    remoteAddress: req.remoteAddress,
    remotePort: req.remotePort,
  };
  // Express's parsed body is not logged by pino-http; if anything puts it on the log line, it goes redacted.
  if ((req as { body?: unknown }).body !== undefined) logged.body = redactFields((req as { body?: unknown }).body);
  return logged;
}

/**
 * Response headers the log never keeps whatever their name says: a redirect's `location` may carry a secret in its
 * query or fragment (a sign-in hand-off, a provider's authorization request), and `set-cookie` sets credentials.
 */
const REDACTED_RESPONSE_HEADER = /^(location|content-location|refresh|set-cookie)$/i;

/** pino-http's response serializer: its headers without credentials (`set-cookie`) and without redirect targets. */
export function redactResponse(res: {
  statusCode?: number;
  headers?: Record<string, unknown>;
}): Record<string, unknown> {
  const headers = redactHeaders(res.headers);
  if (headers) {
    for (const name of Object.keys(headers)) if (REDACTED_RESPONSE_HEADER.test(name)) headers[name] = REDACTED;
  }
  return { statusCode: res.statusCode, headers };
}
