import Button from '@mui/material/Button';
import Stack from '@mui/material/Stack';
import Typography from '@mui/material/Typography';
import { pageItemsWithEllipsis } from './pageNumbers';

/** Previous, the page buttons of SPEC §2 (ellipsis when over 7 pages), Next. `page` is 1-based. */
export function PageNumbers({ page, totalPages, onChange }: { page: number; totalPages: number; onChange: (page: number) => void }) {
  return (
    <Stack
      component="nav"
      aria-label="Pages"
      direction="row"
      spacing={0.5}
      sx={{ alignItems: 'center', flexWrap: 'wrap' }}
    >
      <Button size="small" disabled={page <= 1} onClick={() => onChange(page - 1)}>
        Previous
      </Button>
      {pageItemsWithEllipsis(page, totalPages).map((item) =>
        typeof item === 'number' ? (
          <Button
            key={item}
            size="small"
            variant={item === page ? 'contained' : 'text'}
            aria-current={item === page ? 'page' : undefined}
            aria-label={`Page ${item}`}
            onClick={() => onChange(item)}
            sx={{ minWidth: 36 }}
          >
            {item}
          </Button>
        ) : (
          <Typography key={item} component="span" aria-hidden sx={{ px: 0.5 }}>
            …
          </Typography>
        ),
      )}
      <Button size="small" disabled={page >= totalPages} onClick={() => onChange(page + 1)}>
        Next
      </Button>
    </Stack>
  );
}
