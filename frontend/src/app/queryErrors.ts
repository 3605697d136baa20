import { isRejectedWithValue, type Middleware } from '@reduxjs/toolkit';

/** Told of every failed read (an RTK Query `query`, not a mutation: mutations report their own failures). */
export type QueryErrorReporter = (endpointName: string, error: unknown) => void;

let reporter: QueryErrorReporter | undefined;

/** The admin console registers how failed reads are shown (docs/product.md §9.3: as toasts); the public pages register nothing. */
export function setQueryErrorReporter(next: QueryErrorReporter | undefined): void {
  reporter = next;
}

interface QueryMeta {
  arg?: { type?: string; endpointName?: string };
}

/** Passes each rejected query of the one API to the registered reporter. */
export const queryErrorMiddleware: Middleware = () => (next) => (action) => {
  if (reporter && isRejectedWithValue(action)) {
    const arg = (action.meta as QueryMeta).arg;
    if (arg?.type === 'query' && arg.endpointName) reporter(arg.endpointName, action.payload);
  }
  return next(action);
};
