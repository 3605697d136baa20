import type { client } from '../../api';
import { setQueryErrorReporter } from '../../app/queryErrors';
import { toast } from '../../components/toast';
import { httpStatus } from '../../utils/httpError';
import { errorText } from '../redemptions/errors';

type EndpointName = keyof typeof client.endpoints;

/** Titles of the failed-load toasts, by RTK Query endpoint; any other read says `LOAD_ERROR_DEFAULT`. */
export const LOAD_ERROR_TITLES: Partial<Record<EndpointName, string>> = {
  statsControllerForPeriod: 'Failed to load statistics',
  productControllerList: 'Failed to load products',
  productControllerGet: 'Failed to load product',
  redemptionAdminControllerList: 'Failed to load redemptions',
  redemptionAdminControllerFindOne: 'Failed to load redemption details',
  licenseKeyControllerList: 'Failed to load license keys',
  licenseKeyControllerLicenseManagedProducts: 'Failed to load products',
  voucherControllerList: 'Failed to load voucher codes',
  sessionsControllerList: 'Failed to load sessions',
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
    if (endpointName === 'authControllerMe' || httpStatus(error as never) === 401) return;
    toast({
      title: LOAD_ERROR_TITLES[endpointName as EndpointName] ?? LOAD_ERROR_DEFAULT,
      description: errorText(error, LOAD_ERROR_FALLBACK),
      variant: 'destructive',
    });
  });
}
