/*
 * The rules every admin list follows (docs/architecture.md, "Lists"): pure, so they are unit-tested on their own
 * (list-rules.spec.ts); list-page.ts applies them to a list's declaration.
 */

/**
 * Up to a cap a list's total is exact; beyond it, PostgreSQL's estimate is returned with `totalCountExact: false`:
 * counting a million rows exactly costs far more than the page itself. A plain or filtered list counts index entries,
 * cheap enough up to LIST_EXACT_COUNT_LIMIT (100,000); a text search re-checks every match against the trigram index,
 * so it counts exactly only up to 1,000 (a narrow search answers exactly up to SEARCH_COLLECT_FACTOR times that: it
 * has read every match anyway).
 */
export const SEARCH_EXACT_COUNT_LIMIT = 1000;

/**
 * A search first walks this many of the list's newest rows (the more when it is broad); with too few matches there,
 * the search's indexes answer.
 */
export const SEARCH_WALK_ROWS = { narrow: 1000, broad: 5000 } as const;

/**
 * A search is broad when PostgreSQL expects more matches than SEARCH_BROAD and more than SEARCH_BROAD_SHARE of the
 * list. Its estimate of a trigram pattern never goes below about 1/10,000 of the table, whatever the pattern: at ten
 * million rows an exact code is expected to match about 2,000 rows, as many as a broad search at one million.
 */
export const SEARCH_BROAD = 2000;
export const SEARCH_BROAD_SHARE = 0.001;

/** A search expected narrow reads up to this many times the exact-count limit of matches in one statement. */
export const SEARCH_COLLECT_FACTOR = 3;

export interface Counted {
  count: number;
  exact: boolean;
}

/** The exact-count limit of one request: the list's own (LIST_EXACT_COUNT_LIMIT), lower for a text search. */
export function exactCountLimit(search: boolean, listLimit: number): number {
  return search ? Math.min(SEARCH_EXACT_COUNT_LIMIT, listLimit) : listLimit;
}

/** Whether a search is broad: `expected` matches (PostgreSQL's estimate) of a list of about `listRows` rows. */
export function isBroadSearch(expected: number, listRows: number): boolean {
  return expected > SEARCH_BROAD && expected > SEARCH_BROAD_SHARE * listRows;
}

/** Whether the list's own size is needed to tell a search's breadth (it is read only then). */
export function needsListRows(expected: number): boolean {
  return expected > SEARCH_BROAD;
}

/** The rows a search walks: the newest of the list, more for a broad search. */
export function walkRows(broad: boolean): number {
  return broad ? SEARCH_WALK_ROWS.broad : SEARCH_WALK_ROWS.narrow;
}

/** Whether a page lies within the walked rows (a deeper page is read through the indexes). */
export function pageWithinWalk(offset: number, limit: number, rows: number): boolean {
  return offset + limit < rows;
}

/**
 * The total of a narrow search that collected up to `cap` matches (`found`: how many, `cap + 1` when there were
 * more): exact when it read them all, else the estimate, raised above the cap.
 */
export function collectedTotal(found: number, cap: number, estimate: number): Counted {
  return found <= cap ? { count: found, exact: true } : { count: Math.max(estimate, cap + 1), exact: false };
}

/** Whether a bounded count is worth running: an estimate well above the cap is answered as it is. */
export function worthCounting(estimate: number, cap: number): boolean {
  return estimate <= cap * 2;
}

/** The total of a bounded count (`counted`: up to `cap + 1`): exact within the cap, else the estimate raised above it. */
export function cappedTotal(counted: number, cap: number, estimate: number): Counted {
  return counted <= cap ? { count: counted, exact: true } : { count: Math.max(estimate, cap + 1), exact: false };
}

/**
 * The total of a walked search: `matches` (up to `cap + 1`) among `rows` newest rows of a window of `windowSize`.
 * Exact when the window is the whole list and the matches are within the cap; otherwise the window's share of
 * matches applied to the list's estimated size.
 */
export function walkedTotal(
  rows: number,
  matches: number,
  windowSize: number,
  listEstimate: number,
  cap: number,
): Counted {
  if (rows < windowSize && matches <= cap) return { count: matches, exact: true };
  const share = matches / Math.max(rows, 1);
  return { count: Math.max(Math.round(share * Math.max(listEstimate, rows)), matches), exact: false };
}

/** The total shown with a page: an estimate never contradicts what the page has seen (`seen`: rows up to its end). */
export function shownTotal(counted: Counted, seen: number): number {
  return counted.exact ? counted.count : Math.max(counted.count, seen);
}

/**
 * The one pagination contract of the admin lists: the `pagination` object (docs/product.md §4.9 fields plus `totalCountExact`),
 * page-numbered. `rowsOnPage` and `hasNextPage` are the page's; the total never contradicts them.
 */
export function pagination(page: number, limit: number, rowsOnPage: number, hasNextPage: boolean, counted: Counted) {
  const totalCount = shownTotal(counted, (page - 1) * limit + rowsOnPage + (hasNextPage ? 1 : 0));
  return {
    currentPage: page,
    limit,
    totalCount,
    totalPages: Math.ceil(totalCount / limit),
    hasPreviousPage: page > 1,
    hasNextPage,
    totalCountExact: counted.exact,
  };
}
