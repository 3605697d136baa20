import { setQueryErrorReporter } from '../../app/queryErrors';
import { toast } from '../../components/toast';
import { httpStatus } from '../../utils/httpError';
import { errorText } from '../redemptions/errors';

/** Titles of the failed-load toasts, by RTK Query endpoint; any other read says `LOAD_ERROR_DEFAULT`. */
export const LOAD_ERROR_TITLES: Record<string, string> = {
  stats: 'Failed to load statistics',
  products: 'Failed to load products',
  product: 'Failed to load product',
  getRedemptions: 'Failed to load redemptions',
  getRedemption: 'Failed to load redemption details',
  getLicenseKeys: 'Failed to load license keys',
  getLicenseManagedProducts: 'Failed to load products',
  voucherCodes: 'Failed to load voucher codes',
  sessions: 'Failed to load sessions',
};
export const LOAD_ERROR_DEFAULT = 'Failed to load data';
export const LOAD_ERROR_FALLBACK = 'Please try again.';

/**
 * docs/product.md §9.3 "All admin errors surface as toasts", list loads included: a failed read of the console toasts its
 * title with the server's message (else "{status}: {body}", else a fallback). Not toasted: the me call and any
 * 401, which end in the login page (the session is over).
 */
export function installLoadErrorToasts(): void {
  setQueryErrorReporter((endpointName, error) => {
    if (endpointName === 'me' || httpStatus(error as never) === 401) return;
    toast({
      title: LOAD_ERROR_TITLES[endpointName] ?? LOAD_ERROR_DEFAULT,
      description: errorText(error, LOAD_ERROR_FALLBACK),
      variant: 'destructive',
    });
  });
}
