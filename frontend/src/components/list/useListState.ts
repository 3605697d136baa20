import { useCallback, useEffect, useMemo, useState, type Dispatch, type SetStateAction } from 'react';
import type { PaginationResponse } from '../../api';
import { useDebouncedValue } from './useDebouncedValue';

/**
 * The `pagination` object every admin list answers (docs/api.md; the server's one contract, docs/architecture.md,
 * "Lists"). `totalCountExact` false: `totalCount` (and so `totalPages`) is PostgreSQL's estimate, shown as "about N".
 */
export type Pagination = PaginationResponse;

/** What a list asks the server for: the page (1-based), its size, the applied search and the list's own filters. */
export type ListArgs<F> = F & { page: number; limit: number; search: string };

/** What a list's query answers (RTK Query's result, or any with these fields). */
interface QueryResult<D> {
  data?: D;
  isFetching: boolean;
  isError?: boolean;
  error?: unknown;
}

interface Options<F, Row, D extends { pagination: Pagination }, Q extends QueryResult<D>> {
  pageSize: number;
  /** The list's filters as first shown (a tab, a status, a product); changing one starts again at page 1. */
  filters: F;
  /** Rows that can be selected; none when absent. */
  isSelectable?: (row: Row) => boolean;
  /** The list's query (an RTK Query hook), asked with the list's arguments. */
  useQuery: (args: ListArgs<F>) => Q;
  /** The rows of an answer (a function that keeps its identity: the rows are memoised on it). */
  rowsOf: (data: D) => Row[];
  /** Leave the query out (e.g. no product yet). */
  skip?: boolean;
}

/**
 * The state of one admin list (docs/frontend.md): page, page size, the search (typed, applied after the debounce, or
 * at once with `setSearch`), filters and the selection (selectable rows only, kept across pages, dropped when a row
 * stops being selectable). A new search or filter starts again on page 1 with nothing selected; a page past the end
 * (after deletes) goes back to the last one.
 */
export function useListState<
  F extends object,
  Row extends { id: string },
  D extends { pagination: Pagination },
  Q extends QueryResult<D> = QueryResult<D>,
>(options: Options<F, Row, D, Q>) {
  const { pageSize, isSelectable, useQuery, rowsOf } = options;
  const [page, setPage] = useState(1);
  const [filters, setFilters] = useState<F>(options.filters);
  const [searchInput, setSearchInput] = useState('');
  const debounced = useDebouncedValue(searchInput).trim();
  const [search, setApplied] = useState('');
  const [selected, setSelected] = useState<ReadonlySet<string>>(() => new Set());

  useEffect(() => setApplied(debounced), [debounced]);
  const restart = useCallback(() => {
    setPage(1);
    setSelected(new Set());
  }, []);
  useEffect(restart, [search, restart]);

  const setFilter = useCallback(
    <K extends keyof F>(key: K, value: F[K]) => {
      setFilters((prev) => (Object.is(prev[key], value) ? prev : { ...prev, [key]: value }));
      restart();
    },
    [restart],
  );
  /** Applies a search at once (the voucher page's Enter), without waiting for the debounce. */
  const setSearch = useCallback((text: string) => {
    setSearchInput(text);
    setApplied(text.trim());
  }, []);

  const query = useQuery({ ...filters, page, limit: pageSize, search });
  const { data } = query;
  const pagination = data?.pagination;
  const rows = useMemo(() => (data ? rowsOf(data) : []), [data, rowsOf]);

  const totalPages = pagination?.totalPages ?? 0;
  useEffect(() => {
    if (totalPages > 0 && page > totalPages) setPage(totalPages);
  }, [page, totalPages]);

  const canSelect = useCallback((row: Row) => (isSelectable ? isSelectable(row) : false), [isSelectable]);
  // A selected row that stopped being selectable meanwhile (another admin gave it a key) is dropped.
  useEffect(() => {
    const taken = rows.filter((r) => !canSelect(r)).map((r) => r.id);
    setSelected((prev) =>
      taken.some((id) => prev.has(id)) ? new Set([...prev].filter((id) => !taken.includes(id))) : prev,
    );
  }, [rows, canSelect]);
  const selectableOnPage = useMemo(() => rows.filter(canSelect), [rows, canSelect]);
  const selectedOnPage = selectableOnPage.filter((r) => selected.has(r.id));

  const toggle = useCallback((id: string) => {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }, []);
  const toggleAllOnPage = useCallback(() => {
    setSelected((prev) => {
      const next = new Set(prev);
      const all = selectableOnPage.length > 0 && selectableOnPage.every((r) => next.has(r.id));
      for (const r of selectableOnPage) {
        if (all) next.delete(r.id);
        else next.add(r.id);
      }
      return next;
    });
  }, [selectableOnPage]);

  return {
    page,
    setPage,
    pageSize,
    filters,
    setFilter,
    searchInput,
    setSearchInput,
    search,
    setSearch,
    query,
    data,
    isFetching: query.isFetching,
    error: query.error as Q['error'],
    rows,
    pagination,
    totalCount: pagination?.totalCount ?? 0,
    totalPages,
    totalExact: pagination?.totalCountExact !== false,
    hasNext: pagination?.hasNextPage ?? false,
    selected,
    setSelected: setSelected as Dispatch<SetStateAction<ReadonlySet<string>>>,
    isSelectable: canSelect,
    toggle,
    toggleAllOnPage,
    allOnPageSelected: selectableOnPage.length > 0 && selectedOnPage.length === selectableOnPage.length,
    someOnPageSelected: selectedOnPage.length > 0,
    noneSelectableOnPage: selectableOnPage.length === 0,
    clearSelection: useCallback(() => setSelected(new Set()), []),
  };
}

export type ListState<F extends object, Row extends { id: string }, D extends { pagination: Pagination }> = ReturnType<
  typeof useListState<F, Row, D, QueryResult<D>>
>;
