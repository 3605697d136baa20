import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { httpErrorMessage, httpStatus } from '../../utils/httpError';

export const DEFAULT_FAILURE_MESSAGE = 'Please check your voucher code and try again.';
export const TOKEN_MISSING_MESSAGE = 'Authentication token missing. Please try again.';

/**
 * docs/product.md §9.2 Public: the modal text of a failed redemption. Any leading status prefix ("400: ") is removed;
 * a JSON body gives its `message` field, other text is shown as it is; nothing usable gives the default.
 */
export function redemptionFailureText(message: string | undefined): string {
  if (!message) return DEFAULT_FAILURE_MESSAGE;
  const text = message.replace(/^\s*\d{3}:\s*/, '').trim();
  if (!text) return DEFAULT_FAILURE_MESSAGE;
  if (text.startsWith('{') || text.startsWith('[')) {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
        const field = (parsed as { message?: unknown }).message;
        if (typeof field === 'string' && field.trim()) return field;
        if (Array.isArray(field) && typeof field[0] === 'string') return field[0];
      }
      return DEFAULT_FAILURE_MESSAGE;
    } catch {
      return text;
    }
  }
  return text;
}

/** 451, or a body with code GEO_BLOCKED and error "Access Restricted": the customer goes to /geo-blocked. */
export function isGeoBlocked(error: FetchBaseQueryError | SerializedError | undefined): boolean {
  if (httpStatus(error) === 451) return true;
  const data = error && 'data' in error ? (error.data as { code?: unknown; error?: unknown } | undefined) : undefined;
  return !!data && typeof data === 'object' && data.code === 'GEO_BLOCKED' && data.error === 'Access Restricted';
}

export type RedeemFailure = { kind: 'geo-blocked' } | { kind: 'failed'; message: string };

export function describeRedeemFailure(error: FetchBaseQueryError | SerializedError | undefined): RedeemFailure {
  if (isGeoBlocked(error)) return { kind: 'geo-blocked' };
  return { kind: 'failed', message: redemptionFailureText(httpErrorMessage(error)) };
}
