import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import type { SerializedError } from '@reduxjs/toolkit';

/**
 * docs/product.md §9.1: a non-OK response becomes the message "{status}: {body text}" (the status text when the body is
 * empty). Network and parsing failures have no status and give `undefined`.
 */
export function httpErrorMessage(error: FetchBaseQueryError | SerializedError | undefined): string | undefined {
  const status = httpStatus(error);
  if (status === undefined) return undefined;
  // A body that is not JSON arrives as a PARSING_ERROR carrying the text.
  const { data } = error as { data?: unknown };
  const text =
    data === undefined || data === null || data === '' ? '' : typeof data === 'string' ? data : JSON.stringify(data);
  return `${status}: ${text || statusText(status)}`;
}

/** The HTTP status of a failed call, when the server answered. */
export function httpStatus(error: FetchBaseQueryError | SerializedError | undefined): number | undefined {
  if (!error || !('status' in error)) return undefined;
  if (typeof error.status === 'number') return error.status;
  if (error.status === 'PARSING_ERROR') return error.originalStatus;
  return undefined;
}

/** The `message` field of a JSON error body, if there is one. */
export function bodyMessage(error: FetchBaseQueryError | SerializedError | undefined): string | undefined {
  if (!error || !('data' in error)) return undefined;
  const data = error.data as { message?: unknown } | undefined;
  return data && typeof data === 'object' && typeof data.message === 'string' && data.message
    ? data.message
    : undefined;
}

const STATUS_TEXT: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  409: 'Conflict',
  429: 'Too Many Requests',
  451: 'Unavailable For Legal Reasons',
  500: 'Internal Server Error',
  502: 'Bad Gateway',
  503: 'Service Unavailable',
};

function statusText(status: number): string {
  return STATUS_TEXT[status] ?? 'Error';
}
