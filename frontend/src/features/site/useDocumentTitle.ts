import { useEffect } from 'react';
import { usePublicConfig } from './usePublicConfig';

/** Sets the tab title to "{title} | {company name}" (just the title until the company name is known). */
export function useDocumentTitle(title: string): void {
  const { companyName } = usePublicConfig();
  useEffect(() => {
    document.title = companyName ? `${title} | ${companyName}` : title;
  }, [title, companyName]);
}
