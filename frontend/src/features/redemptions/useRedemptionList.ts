import { useEffect, useMemo, useState } from 'react';
import { useGetRedemptionsQuery, type AdminRedemption, type EmailStatusFilter } from './redemptionsApi';
import { useDebouncedValue } from './useDebouncedValue';

/** docs/product.md §10.3: redemptions page size. */
export const REDEMPTIONS_PAGE_SIZE = 50;

/** A redemption that already has a licence key cannot be selected for bulk actions (docs/product.md §3.5). */
export const isSelectable = (r: AdminRedemption) => !r.assignedLicenseKey;

/**
 * The list state of a redemptions tab: page, e-mail status filter, debounced search, the page of rows and the
 * selection (selectable rows only, kept across pages). A new search or filter starts again on page 1 with
 * nothing selected.
 */
export function useRedemptionList(showExported: boolean) {
  const [page, setPage] = useState(1);
  const [emailStatus, setEmailStatus] = useState<EmailStatusFilter>('all');
  const [searchInput, setSearchInput] = useState('');
  const search = useDebouncedValue(searchInput).trim();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());

  // Not polled (docs/product.md §8.1: only the stats are): new redemptions and e-mail outcomes arrive as socket events.
  const { data, isFetching, error } = useGetRedemptionsQuery({ page, limit: REDEMPTIONS_PAGE_SIZE, emailStatus, showExported, search });

  useEffect(() => {
    setPage(1);
    setSelected(new Set());
  }, [search, emailStatus]);

  // After deletes the last page may be gone.
  const totalPages = data?.pagination.totalPages ?? 0;
  useEffect(() => {
    if (totalPages > 0 && page > totalPages) setPage(totalPages);
  }, [page, totalPages]);

  const rows = useMemo(() => data?.redemptions ?? [], [data]);

  // A selected redemption that received a key meanwhile (another admin, Fix Pending Emails) is no longer selectable.
  useEffect(() => {
    const taken = rows.filter((r) => !isSelectable(r)).map((r) => r.id);
    setSelected((prev) => (taken.some((id) => prev.has(id)) ? new Set([...prev].filter((id) => !taken.includes(id))) : prev));
  }, [rows]);
  const selectableOnPage = rows.filter(isSelectable);
  const selectedOnPage = selectableOnPage.filter((r) => selected.has(r.id));

  function toggle(id: string) {
    setSelected((prev) => {
      const next = new Set(prev);
      if (next.has(id)) next.delete(id);
      else next.add(id);
      return next;
    });
  }

  function toggleAllOnPage() {
    setSelected((prev) => {
      const next = new Set(prev);
      const all = selectableOnPage.length > 0 && selectableOnPage.every((r) => next.has(r.id));
      for (const r of selectableOnPage) {
        if (all) next.delete(r.id);
        else next.add(r.id);
      }
      return next;
    });
  }

  return {
    showExported,
    page,
    setPage,
    emailStatus,
    setEmailStatus,
    searchInput,
    setSearchInput,
    search,
    data,
    isFetching,
    error,
    rows,
    selected,
    setSelected,
    toggle,
    toggleAllOnPage,
    allOnPageSelected: selectableOnPage.length > 0 && selectedOnPage.length === selectableOnPage.length,
    someOnPageSelected: selectedOnPage.length > 0 && selectedOnPage.length < selectableOnPage.length,
    noneSelectableOnPage: selectableOnPage.length === 0,
    clearSelection: () => setSelected(new Set()),
  };
}

export type RedemptionList = ReturnType<typeof useRedemptionList>;
