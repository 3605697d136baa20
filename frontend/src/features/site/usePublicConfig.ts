import { type PublicConfig } from './siteApi';
import { usePublicConfigControllerGetQuery } from '../../api';

const EMPTY: PublicConfig = { supportEmail: '', companyName: '', companyAddress: '', ssoDisplayName: null };

/**
 * The site's support e-mail, company name and address (never hard-coded). Until the answer arrives the
 * fields are empty strings, so callers render nothing rather than a placeholder.
 */
export function usePublicConfig(): PublicConfig & { isLoading: boolean } {
  const { data, isLoading } = usePublicConfigControllerGetQuery();
  return { ...(data ?? EMPTY), isLoading };
}
