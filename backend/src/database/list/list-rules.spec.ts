import {
  cappedTotal,
  collectedTotal,
  exactCountLimit,
  isBroadSearch,
  needsListRows,
  pageWithinWalk,
  pagination,
  shownTotal,
  walkedTotal,
  walkRows,
  worthCounting,
} from './list-rules';

describe('list rules', () => {
  describe('broad or narrow search', () => {
    it('is broad only above 2,000 expected matches and above 0.1% of the list', () => {
      expect(isBroadSearch(150_000, 1_000_000)).toBe(true);
      // Ten million rows: an exact code is expected to match about 2,000, which is 0.02% of the list.
      expect(isBroadSearch(2_102, 10_000_000)).toBe(false);
      expect(isBroadSearch(10_001, 10_000_000)).toBe(true);
      // A small list: 2,000 matches or fewer is never broad, however large a share.
      expect(isBroadSearch(2_000, 2_000)).toBe(false);
      expect(isBroadSearch(2_001, 3_000)).toBe(true);
    });

    it("reads the list's own size only when the expected matches could make a search broad", () => {
      expect(needsListRows(2_000)).toBe(false);
      expect(needsListRows(2_001)).toBe(true);
    });

    it('walks more rows for a broad search, and only for pages within the walk', () => {
      expect(walkRows(false)).toBe(1000);
      expect(walkRows(true)).toBe(5000);
      expect(pageWithinWalk(900, 50, 1000)).toBe(true);
      expect(pageWithinWalk(950, 50, 1000)).toBe(false);
    });
  });

  describe('totals', () => {
    it('counts a search exactly up to 1,000 and a plain list up to its own limit', () => {
      expect(exactCountLimit(true, 100_000)).toBe(1000);
      expect(exactCountLimit(true, 500)).toBe(500);
      expect(exactCountLimit(false, 100_000)).toBe(100_000);
    });

    it('is exact when a narrow search collected every match, else the estimate above the cap', () => {
      expect(collectedTotal(1, 3000, 2102)).toEqual({ count: 1, exact: true });
      expect(collectedTotal(3000, 3000, 10)).toEqual({ count: 3000, exact: true });
      expect(collectedTotal(3001, 3000, 10)).toEqual({ count: 3001, exact: false });
      expect(collectedTotal(3001, 3000, 50_000)).toEqual({ count: 50_000, exact: false });
    });

    it('counts only when the estimate is not far above the cap, exact within it', () => {
      expect(worthCounting(2000, 1000)).toBe(true);
      expect(worthCounting(2001, 1000)).toBe(false);
      expect(cappedTotal(1000, 1000, 5000)).toEqual({ count: 1000, exact: true });
      expect(cappedTotal(1001, 1000, 900)).toEqual({ count: 1001, exact: false });
      expect(cappedTotal(1001, 1000, 1800)).toEqual({ count: 1800, exact: false });
    });

    it("gives a walked search the window's share of the list, exact only when the window is the whole list", () => {
      expect(walkedTotal(400, 37, 1000, 400, 1000)).toEqual({ count: 37, exact: true });
      expect(walkedTotal(1000, 100, 1000, 1_000_000, 1000)).toEqual({ count: 100_000, exact: false });
      // Never below the matches seen.
      expect(walkedTotal(1000, 100, 1000, 10, 1000)).toEqual({ count: 100, exact: false });
    });

    it('never shows an estimate below what the page has seen', () => {
      expect(shownTotal({ count: 10, exact: false }, 51)).toBe(51);
      expect(shownTotal({ count: 10, exact: true }, 51)).toBe(10);
    });
  });

  it('answers the page-numbered pagination object', () => {
    expect(pagination(3, 50, 50, true, { count: 120, exact: false })).toEqual({
      currentPage: 3,
      limit: 50,
      totalCount: 151,
      totalPages: 4,
      hasPreviousPage: true,
      hasNextPage: true,
      totalCountExact: false,
    });
    expect(pagination(1, 50, 0, false, { count: 0, exact: true })).toMatchObject({ totalCount: 0, totalPages: 0 });
  });
});
