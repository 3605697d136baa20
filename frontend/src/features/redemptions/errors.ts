import type { SerializedError } from '@reduxjs/toolkit';
import type { FetchBaseQueryError } from '@reduxjs/toolkit/query';
import { bodyMessage, httpErrorMessage } from '../../utils/httpError';

/** The text of a failed call for a toast: the server's message, else docs/product.md §9.1's "{status}: {body}", else `fallback`. */
export function errorText(error: unknown, fallback: string): string {
  const e = error as FetchBaseQueryError | SerializedError | undefined;
  if (error instanceof Error && error.message) return error.message;
  return bodyMessage(e) ?? httpErrorMessage(e) ?? fallback;
}
