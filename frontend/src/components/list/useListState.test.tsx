import { act, renderHook } from '@testing-library/react';
import { SEARCH_DEBOUNCE_MS } from './useDebouncedValue';
import { useListState, type ListArgs, type Pagination } from './useListState';

interface Row {
  id: string;
  locked: boolean;
}
interface Page {
  rows: Row[];
  pagination: Pagination;
}

/** A list of `total` rows answered the way the server answers (answers cached per request, as RTK Query keeps them). */
function server(total: number, locked: (id: string) => boolean = () => false) {
  const asked: Array<ListArgs<{ kind: string }>> = [];
  const answers = new Map<string, Page>();
  const useQuery = (args: ListArgs<{ kind: string }>) => {
    const key = JSON.stringify(args);
    if (!answers.has(key)) {
      asked.push(args);
      const first = (args.page - 1) * args.limit;
      const count = Math.max(0, Math.min(args.limit, total - first));
      const ids = Array.from({ length: count }, (_, i) => `r${first + i}`);
      answers.set(key, {
        rows: ids.map((id) => ({ id, locked: locked(id) })),
        pagination: {
          currentPage: args.page,
          limit: args.limit,
          totalCount: total,
          totalPages: Math.ceil(total / args.limit),
          hasPreviousPage: args.page > 1,
          hasNextPage: first + count < total,
          totalCountExact: true,
        },
      });
    }
    return { data: answers.get(key), isFetching: false };
  };
  return { asked, useQuery, setTotal: (n: number) => ((total = n), answers.clear()) };
}

const rowsOf = (page: Page) => page.rows;

function render(list: ReturnType<typeof server>) {
  return renderHook(() =>
    useListState({
      pageSize: 2,
      filters: { kind: 'all' },
      isSelectable: (row: Row) => !row.locked,
      rowsOf,
      useQuery: list.useQuery,
    }),
  );
}

afterEach(() => jest.useRealTimers());

describe('useListState', () => {
  it('asks page 1 with the filters; a search applies after the debounce, and a search or filter starts again at page 1 with nothing selected', () => {
    jest.useFakeTimers();
    const list = server(10);
    const { result } = render(list);
    expect(list.asked).toEqual([{ kind: 'all', page: 1, limit: 2, search: '' }]);
    act(() => result.current.setPage(3));
    act(() => result.current.toggle('r4'));
    expect(result.current.selected).toEqual(new Set(['r4']));

    act(() => result.current.setSearchInput('  ab '));
    act(() => jest.advanceTimersByTime(SEARCH_DEBOUNCE_MS - 1));
    expect(result.current.search).toBe('');
    act(() => jest.advanceTimersByTime(1));
    expect(result.current.search).toBe('ab');
    expect(result.current.page).toBe(1);
    expect(result.current.selected.size).toBe(0);

    act(() => result.current.setPage(2));
    act(() => result.current.setFilter('kind', 'void'));
    expect(result.current.page).toBe(1);
    expect(list.asked.at(-1)).toEqual({ kind: 'void', page: 1, limit: 2, search: 'ab' });

    // The voucher page's Enter: at once, no debounce.
    act(() => result.current.setSearch(' x '));
    expect(list.asked.at(-1)).toEqual({ kind: 'void', page: 1, limit: 2, search: 'x' });
  });

  it('selects selectable rows only, keeps the selection across pages and drops a row that stops being selectable', () => {
    let lockedIds = new Set(['r1']);
    const list = server(6, (id) => lockedIds.has(id));
    const { result, rerender } = render(list);
    act(() => result.current.toggleAllOnPage());
    expect(result.current.selected).toEqual(new Set(['r0']));
    expect(result.current.allOnPageSelected).toBe(true);

    act(() => result.current.setPage(2));
    act(() => result.current.toggle('r2'));
    expect(result.current.selected).toEqual(new Set(['r0', 'r2']));
    expect(result.current.allOnPageSelected).toBe(false);
    expect(result.current.someOnPageSelected).toBe(true);

    // Another admin gave r2 a key: the next answer shows it locked.
    lockedIds = new Set(['r1', 'r2']);
    list.setTotal(6);
    rerender();
    expect(result.current.selected).toEqual(new Set(['r0']));
  });

  it('goes back to the last page when the page it shows is gone (after deletes)', () => {
    const list = server(6);
    const { result, rerender } = render(list);
    act(() => result.current.setPage(3));
    expect(result.current.rows.map((r) => r.id)).toEqual(['r4', 'r5']);
    list.setTotal(3);
    rerender();
    expect(result.current.page).toBe(2);
    expect(result.current.rows.map((r) => r.id)).toEqual(['r2']);
  });
});
