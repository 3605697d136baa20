/** A page button (1-based) or a gap. */
export type PageItem = number | 'start-ellipsis' | 'end-ellipsis';

/** docs/product.md §3.12 voucher codes page: every page when there are 7 or fewer, otherwise first, last, the current page's neighbours and ellipses. */
export const MAX_PAGES_WITHOUT_ELLIPSIS = 7;

/** docs/product.md §10.3: up to 5 page buttons in the admin list. */
export const MAX_PAGE_BUTTONS = 5;

export function pageItemsWithEllipsis(current: number, total: number): PageItem[] {
  if (total <= 0) return [];
  const page = Math.min(Math.max(1, current), total);
  if (total <= MAX_PAGES_WITHOUT_ELLIPSIS) return Array.from({ length: total }, (_, i) => i + 1);
  if (page <= 4) return [1, 2, 3, 4, 5, 'end-ellipsis', total];
  if (page >= total - 3) return [1, 'start-ellipsis', total - 4, total - 3, total - 2, total - 1, total];
  return [1, 'start-ellipsis', page - 1, page, page + 1, 'end-ellipsis', total];
}

/** Up to `size` consecutive page numbers around `current`, kept inside 1..total. */
export function pageWindow(current: number, total: number, size = MAX_PAGE_BUTTONS): number[] {
  if (total <= 0) return [];
  const page = Math.min(Math.max(1, current), total);
  const start = Math.max(1, Math.min(page - Math.floor(size / 2), total - size + 1));
  const end = Math.min(total, start + size - 1);
  return Array.from({ length: end - start + 1 }, (_, i) => start + i);
}

/**
 * An estimated number as the lists show it: "about 150,000". A list's total beyond the server's exact-count limit
 * is PostgreSQL's estimate (`totalCountExact: false`) and is never shown as a count (docs/product.md §3.16).
 */
export function aboutText(n: number): string {
  return `about ${n.toLocaleString('en-US')}`;
}

/** "Showing x-y of total" (0-0 of 0 on an empty list), "of about N" for an estimate; `page` is 1-based. */
export function showingText({
  currentPage,
  limit,
  totalCount,
  totalCountExact,
}: {
  currentPage: number;
  limit: number;
  totalCount: number;
  totalCountExact?: boolean;
}): string {
  if (totalCount === 0) return 'Showing 0-0 of 0';
  const first = (currentPage - 1) * limit + 1;
  const last = Math.min(currentPage * limit, totalCount);
  return `Showing ${Math.min(first, totalCount)}-${last} of ${totalCountExact === false ? aboutText(totalCount) : totalCount}`;
}

/** "Page x of y", "Page x of about y" when the total is an estimate (`exact` false). */
export function pageOfText(page: number, totalPages: number, exact = true): string {
  return `Page ${page} of ${exact ? Math.max(totalPages, 1) : aboutText(totalPages)}`;
}
