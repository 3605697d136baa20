import { useCallback } from 'react';
import { useListState } from '../../components/list/useListState';
import { redemptionsArg, type AdminRedemption, type EmailStatusFilter, type RedemptionsPage } from './redemptionsApi';
import { useRedemptionAdminControllerListQuery } from '../../api';

/** docs/product.md §10.3: redemptions page size. */
export const REDEMPTIONS_PAGE_SIZE = 50;

/**
 * A redemption that already has a licence key (docs/product.md §3.5), or is held for review (§25.2: Approve delivers
 * it), cannot be selected for bulk actions.
 */
export const isSelectable = (r: AdminRedemption) => !r.assignedLicenseKey && !r.heldForReview;

const redemptionsOf = (page: RedemptionsPage) => page.redemptions;

/**
 * The list state of a redemptions tab (`useListState`): page, e-mail status filter, debounced search, the page of
 * rows and the selection (selectable rows only, kept across pages). A new search or filter starts again on page 1
 * with nothing selected.
 */
export function useRedemptionList(showExported: boolean) {
  const list = useListState({
    pageSize: REDEMPTIONS_PAGE_SIZE,
    filters: { emailStatus: 'all' as EmailStatusFilter },
    isSelectable,
    rowsOf: redemptionsOf,
    // Not polled (docs/product.md §8.1: only the stats are): new redemptions and e-mail outcomes arrive as socket events.
    useQuery: ({ page, limit, emailStatus, search }) =>
      useRedemptionAdminControllerListQuery(redemptionsArg({ page, limit, emailStatus, showExported, search })),
  });
  const { setFilter } = list;
  const setEmailStatus = useCallback((status: EmailStatusFilter) => setFilter('emailStatus', status), [setFilter]);
  // docs/product.md §3.17: an empty Recent Redemptions list asks whether the same filter and search find exported
  // redemptions, so that it can say they are only hidden because they were exported.
  const emptyHere = !showExported && list.data !== undefined && list.rows.length === 0 && list.page === 1;
  const exported = useRedemptionAdminControllerListQuery(
    redemptionsArg({
      page: 1,
      limit: 1,
      emailStatus: list.filters.emailStatus,
      showExported: true,
      search: list.search,
    }),
    { skip: !emptyHere },
  );
  const checkingExported = emptyHere && (exported.isUninitialized || exported.isFetching);
  const exportedElsewhere = emptyHere && !checkingExported ? exported.data?.pagination : undefined;
  return {
    ...list,
    showExported,
    emailStatus: list.filters.emailStatus,
    setEmailStatus,
    /** Whether the empty list is still asking about exported redemptions (its empty text waits). */
    checkingExported,
    /** The exported redemptions of the same filter and search, asked only while Recent Redemptions is empty. */
    exportedElsewhere: exportedElsewhere && exportedElsewhere.totalCount > 0 ? exportedElsewhere : undefined,
  };
}

export type RedemptionList = ReturnType<typeof useRedemptionList>;
