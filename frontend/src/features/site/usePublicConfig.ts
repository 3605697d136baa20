import { useGetPublicConfigQuery, type PublicConfig } from './siteApi';

const EMPTY: PublicConfig = { supportEmail: '', companyName: '', companyAddress: '', ssoDisplayName: null };

/**
 * The site's support e-mail, company name and address (never hard-coded). Until the answer arrives the
 * fields are empty strings, so callers render nothing rather than a placeholder.
 */
export function usePublicConfig(): PublicConfig & { isLoading: boolean } {
  const { data, isLoading } = useGetPublicConfigQuery();
  return { ...(data ?? EMPTY), isLoading };
}
