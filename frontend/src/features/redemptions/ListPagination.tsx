import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import type { Pagination } from './redemptionsApi';

/** SPEC §9: up to 5 page buttons in the admin list. */
export const MAX_PAGE_BUTTONS = 5;

/** Up to `max` consecutive page numbers around `current`, kept inside 1..total. */
export function pageWindow(current: number, total: number, max = MAX_PAGE_BUTTONS): number[] {
  if (total <= 0) return [];
  const count = Math.min(max, total);
  let start = Math.max(1, current - Math.floor(count / 2));
  start = Math.min(start, total - count + 1);
  return Array.from({ length: count }, (_, i) => start + i);
}

/** "Showing x-y of total" (0-0 of 0 on an empty list). */
export function showingText({ currentPage, limit, totalCount }: Pick<Pagination, 'currentPage' | 'limit' | 'totalCount'>): string {
  if (totalCount === 0) return 'Showing 0-0 of 0';
  const first = (currentPage - 1) * limit + 1;
  const last = Math.min(currentPage * limit, totalCount);
  return `Showing ${Math.min(first, totalCount)}-${last} of ${totalCount}`;
}

interface Props {
  pagination: Pagination;
  onPage: (page: number) => void;
}

/** Recent Redemptions (and the licence list): "Showing x-y of total", Previous, up to 5 page buttons, Next. */
export function NumberedPagination({ pagination, onPage }: Props) {
  const { currentPage, totalPages } = pagination;
  return (
    <Stack component="nav" aria-label="Pagination" direction={{ xs: 'column', sm: 'row' }} spacing={1} sx={{ alignItems: 'center', justifyContent: 'space-between', mt: 2 }}>
      <Typography variant="body2" sx={{ color: 'text.secondary' }}>
        {showingText(pagination)}
      </Typography>
      <Stack direction="row" spacing={0.5} sx={{ alignItems: 'center' }}>
        <Button size="small" variant="outlined" disabled={currentPage <= 1} onClick={() => onPage(currentPage - 1)}>
          Previous
        </Button>
        {pageWindow(currentPage, totalPages).map((page) => (
          <Button
            key={page}
            size="small"
            variant={page === currentPage ? 'contained' : 'outlined'}
            aria-current={page === currentPage ? 'page' : undefined}
            aria-label={`Page ${page}`}
            onClick={() => onPage(page)}
            sx={{ minWidth: 36 }}
          >
            {page}
          </Button>
        ))}
        <Button size="small" variant="outlined" disabled={currentPage >= totalPages} onClick={() => onPage(currentPage + 1)}>
          Next
        </Button>
      </Stack>
    </Stack>
  );
}

/** Exported Vouchers: Previous/Next with "Page x of y". */
export function SimplePagination({ pagination, onPage }: Props) {
  const { currentPage, totalPages } = pagination;
  return (
    <Stack component="nav" aria-label="Pagination" direction="row" spacing={2} sx={{ alignItems: 'center', justifyContent: 'center', mt: 2 }}>
      <Button size="small" variant="outlined" disabled={currentPage <= 1} onClick={() => onPage(currentPage - 1)}>
        Previous
      </Button>
      <Typography variant="body2">{`Page ${currentPage} of ${Math.max(totalPages, 1)}`}</Typography>
      <Button size="small" variant="outlined" disabled={currentPage >= totalPages} onClick={() => onPage(currentPage + 1)}>
        Next
      </Button>
    </Stack>
  );
}
