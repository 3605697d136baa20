import { useEffect } from 'react';
import { usePublicConfig } from './usePublicConfig';

/**
 * Sets the tab title to "{title} | {company name}" (just the title until the company name is known) and,
 * when given, the page's meta description (what search results and shared links show).
 */
export function useDocumentTitle(title: string, description?: string): void {
  const { companyName } = usePublicConfig();
  useEffect(() => {
    document.title = companyName ? `${title} | ${companyName}` : title;
  }, [title, companyName]);
  useEffect(() => {
    if (!description) return;
    let meta = document.head.querySelector<HTMLMetaElement>('meta[name="description"]');
    if (!meta) {
      meta = document.createElement('meta');
      meta.name = 'description';
      document.head.appendChild(meta);
    }
    meta.content = description;
  }, [description]);
}
