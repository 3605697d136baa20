import Checkbox from '@mui/material/Checkbox';
import LinearProgress from '@mui/material/LinearProgress';
import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell, { type TableCellProps } from '@mui/material/TableCell';
import TableContainer from '@mui/material/TableContainer';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import type { ReactNode } from 'react';

/** One column of a list table: its header and how a row shows in it. */
export interface ListColumn<Row> {
  key: string;
  header: ReactNode;
  align?: TableCellProps['align'];
  sx?: TableCellProps['sx'];
  render: (row: Row) => ReactNode;
}

/** The selection column: the list's selection state (`useListState`) and the boxes' accessible names. */
export interface ListTableSelection<Row> {
  selected: ReadonlySet<string>;
  isSelectable: (row: Row) => boolean;
  toggle: (id: string) => void;
  toggleAllOnPage: () => void;
  allOnPageSelected: boolean;
  someOnPageSelected: boolean;
  noneSelectableOnPage: boolean;
  selectAllLabel: string;
  rowLabel: (row: Row) => string;
  /** What a row that cannot be selected shows in the column (nothing by default). */
  notSelectable?: (row: Row) => ReactNode;
}

/**
 * The table of every admin list (redemptions, voucher codes, licence keys): a loading bar, the header, an optional
 * selection column (select all on the page, one box a selectable row), the rows and an empty message. Paging stays
 * with `Paginator` below it.
 */
export function ListTable<Row extends { id: string }>({
  label,
  rows,
  columns,
  selection,
  loading,
  loadingLabel,
  empty,
  outlined = false,
  rowProps,
}: {
  /** The table's accessible name. */
  label: string;
  rows: Row[];
  columns: Array<ListColumn<Row>>;
  selection?: ListTableSelection<Row>;
  /** Shows a loading bar (with `loadingLabel`) above the table. */
  loading?: boolean;
  loadingLabel?: string;
  /** Shown across the table when set (the caller decides when the list is empty). */
  empty?: ReactNode;
  /** An outlined paper around the table. */
  outlined?: boolean;
  rowProps?: (row: Row) => Record<string, string>;
}) {
  const span = columns.length + (selection ? 1 : 0);
  return (
    <TableContainer {...(outlined ? { component: Paper, variant: 'outlined' as const } : {})}>
      {loading && <LinearProgress aria-label={loadingLabel} />}
      <Table size="small" aria-label={label}>
        <TableHead>
          <TableRow>
            {selection && (
              <TableCell padding="checkbox">
                <Checkbox
                  slotProps={{ input: { 'aria-label': selection.selectAllLabel } }}
                  checked={selection.allOnPageSelected}
                  indeterminate={selection.someOnPageSelected && !selection.allOnPageSelected}
                  disabled={selection.noneSelectableOnPage}
                  onChange={selection.toggleAllOnPage}
                />
              </TableCell>
            )}
            {columns.map((c) => (
              <TableCell key={c.key} align={c.align}>
                {c.header}
              </TableCell>
            ))}
          </TableRow>
        </TableHead>
        <TableBody>
          {empty !== undefined && (
            <TableRow>
              <TableCell colSpan={span} align="center" sx={{ py: 6, color: 'text.secondary' }}>
                {empty}
              </TableCell>
            </TableRow>
          )}
          {rows.map((row) => (
            <TableRow key={row.id} hover selected={selection?.selected.has(row.id) ?? false} {...rowProps?.(row)}>
              {selection && (
                <TableCell padding="checkbox">
                  {selection.isSelectable(row) ? (
                    <Checkbox
                      slotProps={{ input: { 'aria-label': selection.rowLabel(row) } }}
                      checked={selection.selected.has(row.id)}
                      onChange={() => selection.toggle(row.id)}
                    />
                  ) : (
                    selection.notSelectable?.(row)
                  )}
                </TableCell>
              )}
              {columns.map((c) => (
                <TableCell key={c.key} align={c.align} sx={c.sx}>
                  {c.render(row)}
                </TableCell>
              ))}
            </TableRow>
          ))}
        </TableBody>
      </Table>
    </TableContainer>
  );
}
