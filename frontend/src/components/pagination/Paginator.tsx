import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import type { SxProps, Theme } from '@mui/material/styles';
import Typography from '@mui/material/Typography';
import type { ReactNode } from 'react';
import { pageItemsWithEllipsis, pageOfText, pageWindow, type PageItem } from './pageItems';

/**
 * What stands between Previous and Next: `window`, up to 5 page buttons around the current page (admin lists,
 * docs/product.md §10.3); `ellipsis`, every page up to 7, else first, last, neighbours and gaps (voucher codes page, docs/product.md §3.12);
 * `count`, the text "Page x of y".
 */
export type PaginatorPages = 'window' | 'ellipsis' | 'count';

interface Props {
  /** 1-based. */
  page: number;
  totalPages: number;
  /** False when `totalPages` comes from an estimated total: "Page x of about y", no last-page button. */
  totalExact?: boolean;
  /** Whether a next page exists, as the server says exactly (`hasNextPage`, `hasMore`): what Next follows under an estimate. */
  hasNext?: boolean;
  onPage: (page: number) => void;
  pages: PaginatorPages;
  /** Text before the controls, e.g. "Showing 1-50 of 120". */
  summary?: ReactNode;
  /** Accessible name of the `nav`. */
  label?: string;
  variant?: 'text' | 'outlined';
  sx?: SxProps<Theme>;
}

/** Previous, page buttons or "Page x of y", Next, in a `nav`; with a `summary` on its left. */
export function Paginator({
  page,
  totalPages,
  totalExact = true,
  hasNext,
  onPage,
  pages,
  summary,
  label = 'Pagination',
  variant = 'outlined',
  sx,
}: Props) {
  let items: PageItem[] =
    pages === 'window'
      ? pageWindow(page, totalPages)
      : pages === 'ellipsis'
        ? pageItemsWithEllipsis(page, totalPages)
        : [];
  // The last page of an estimate is a guess: the list ends with the gap instead.
  if (!totalExact && items.at(-2) === 'end-ellipsis') items = items.slice(0, -1);
  const controls = (
    <Stack direction="row" spacing={pages === 'count' ? 1 : 0.5} sx={{ alignItems: 'center', flexWrap: 'wrap' }}>
      <Button size="small" variant={variant} disabled={page <= 1} onClick={() => onPage(page - 1)}>
        Previous
      </Button>
      {pages === 'count' ? (
        <Typography variant="body2">{pageOfText(page, totalPages, totalExact)}</Typography>
      ) : (
        items.map((item) =>
          typeof item === 'number' ? (
            <Button
              key={item}
              size="small"
              variant={item === page ? 'contained' : variant}
              aria-current={item === page ? 'page' : undefined}
              aria-label={`Page ${item}`}
              onClick={() => onPage(item)}
              sx={{ minWidth: 36 }}
            >
              {item}
            </Button>
          ) : (
            <Typography key={item} component="span" aria-hidden sx={{ px: 0.5 }}>
              …
            </Typography>
          ),
        )
      )}
      <Button
        size="small"
        variant={variant}
        disabled={totalExact || hasNext === undefined ? page >= totalPages : !hasNext}
        onClick={() => onPage(page + 1)}
      >
        Next
      </Button>
    </Stack>
  );
  return (
    <Stack
      component="nav"
      aria-label={label}
      direction={{ xs: 'column', sm: 'row' }}
      sx={[{ alignItems: 'center', justifyContent: 'space-between', gap: 1 }, ...(Array.isArray(sx) ? sx : [sx])]}
    >
      {summary !== undefined && (
        <Typography variant="body2" sx={{ color: 'text.secondary' }}>
          {summary}
        </Typography>
      )}
      {controls}
    </Stack>
  );
}
