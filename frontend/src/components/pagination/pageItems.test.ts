import { pageItemsWithEllipsis, pageWindow } from './pageItems';

describe('voucher page numbers (docs/product.md §3.12: all pages at 7 or fewer, ellipsis over 7)', () => {
  it('shows every page when there are 7 or fewer', () => {
    expect(pageItemsWithEllipsis(1, 1)).toEqual([1]);
    expect(pageItemsWithEllipsis(4, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(pageItemsWithEllipsis(7, 7)).toEqual([1, 2, 3, 4, 5, 6, 7]);
  });

  it('shows nothing without pages', () => {
    expect(pageItemsWithEllipsis(1, 0)).toEqual([]);
  });

  it('puts an ellipsis before the last page near the start', () => {
    expect(pageItemsWithEllipsis(1, 8)).toEqual([1, 2, 3, 4, 5, 'end-ellipsis', 8]);
    expect(pageItemsWithEllipsis(4, 20)).toEqual([1, 2, 3, 4, 5, 'end-ellipsis', 20]);
  });

  it('puts an ellipsis after the first page near the end', () => {
    expect(pageItemsWithEllipsis(20, 20)).toEqual([1, 'start-ellipsis', 16, 17, 18, 19, 20]);
    expect(pageItemsWithEllipsis(17, 20)).toEqual([1, 'start-ellipsis', 16, 17, 18, 19, 20]);
  });

  it('shows the current page with its neighbours between two ellipses in the middle', () => {
    expect(pageItemsWithEllipsis(10, 20)).toEqual([1, 'start-ellipsis', 9, 10, 11, 'end-ellipsis', 20]);
    expect(pageItemsWithEllipsis(5, 9)).toEqual([1, 'start-ellipsis', 4, 5, 6, 'end-ellipsis', 9]);
  });

  it('always includes the current page, the first and the last', () => {
    for (let total = 1; total <= 30; total++) {
      for (let page = 1; page <= total; page++) {
        const items = pageItemsWithEllipsis(page, total);
        expect(items).toContain(page);
        expect(items[0]).toBe(1);
        expect(items[items.length - 1]).toBe(total);
        expect(items.length).toBeLessThanOrEqual(7);
      }
    }
  });
});

describe('page window (docs/product.md §10.3: up to 5 page buttons around the current page)', () => {
  it('centres the current page when it can', () => {
    expect(pageWindow(10, 20)).toEqual([8, 9, 10, 11, 12]);
  });

  it('keeps 5 buttons at the edges', () => {
    expect(pageWindow(1, 20)).toEqual([1, 2, 3, 4, 5]);
    expect(pageWindow(2, 20)).toEqual([1, 2, 3, 4, 5]);
    expect(pageWindow(20, 20)).toEqual([16, 17, 18, 19, 20]);
    expect(pageWindow(19, 20)).toEqual([16, 17, 18, 19, 20]);
  });

  it('shows fewer buttons when there are fewer pages', () => {
    expect(pageWindow(2, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(1, 0)).toEqual([]);
  });
});
