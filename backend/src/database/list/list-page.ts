import { cappedCount, estimateRows, Queryable, walkedCount } from './list-counts';
import {
  collectedTotal,
  Counted,
  exactCountLimit,
  isBroadSearch,
  needsListRows,
  pageWithinWalk,
  SEARCH_COLLECT_FACTOR,
  SEARCH_WALK_ROWS,
  walkRows,
} from './list-rules';

/** One key of a list's order, as its index holds it; `name` is its column in a collected match (default: after the dot). */
export interface SortKey {
  expr: string;
  desc?: boolean;
  name?: string;
}

/**
 * What a list is, declared once by the repository that owns its table (docs/architecture.md, "Lists"). The list
 * module builds the statements from it; every table name and SQL fragment comes from here.
 */
export interface ListDeclaration {
  /** The listed table and the alias every fragment uses: `{ table: 'redemptions', alias: 'r' }`. */
  table: string;
  alias: string;
  /** The list order, key by key, as the list's indexes hold it (they are named in the repository). */
  order: SortKey[];
  /**
   * The shown rows: `SELECT … FROM <table> <alias> [JOIN …]`, to which the module adds `WHERE <alias>.id =
   * ANY($1::uuid[]) ORDER BY <order>` (the rows of a page of ids) or, when `inline`, the page's own filter, order,
   * LIMIT and OFFSET (for a view whose joins cost a primary-key lookup a row: one statement instead of two).
   */
  view: { select: string; inline?: boolean };
  /**
   * The rows a search walks (the newest of the list, in order): the columns the window carries (the order's and
   * those the search tests) and the lookups a walked row may need, by name (`{ c: 'CROSS JOIN LATERAL (…) c' }`): a
   * search names those its test reads (`search.lookups`), every one by default.
   */
  walk?: { columns: string; lookups?: Record<string, string> };
}

/** One request's filter on a list: SQL fragments with their parameters, numbered `$1…` in this order. */
export interface ListFilter {
  params: unknown[];
  /** On `<alias>` alone, as the list's indexes read it. */
  base: string;
  search?: {
    /** Numbered after `params`. */
    params: unknown[];
    /** The search on `<alias>` alone, through the search's indexes. */
    indexed: string;
    /** The search on a walked row (the window's columns and the walk's lookups). */
    joined: string;
    /**
     * The walk's lookups `joined` reads, by their names in the declaration (all of them when not given): a row costs a
     * primary-key probe per lookup, and a term found only in e-mails needs no code looked up.
     */
    lookups?: string[];
    /**
     * Every match once, `base` included, selecting `<alias>.id` and the order's other keys by name; by default
     * `SELECT <alias>.id, <keys> FROM <table> <alias> WHERE <base> AND <indexed>`.
     */
    matches?: string;
    /**
     * `indexed` is an equality on the leading column of an index that continues with the list's base and order (the
     * redemption list's full name): the page is read from it in order, however many rows match, and the total is
     * counted like a plain list's (exact up to the search's cap, the estimate beyond): no collecting, no walk.
     */
    ordered?: boolean;
    /**
     * The repository knows the search matches few rows, whatever PostgreSQL expects (a whole code, found by its unique
     * index: its estimate is 1% of the table when the code happens to be a bound of the column's histogram): it is
     * collected, and so counted exactly, without asking whether the estimate looks broad.
     */
    narrow?: boolean;
    /**
     * The repository expects few matches though PostgreSQL's estimate says many (a term that starts codes of other
     * products only, estimated over theirs): the newest rows are walked first (a page there when they hold one after
     * all), and with too few there the matches are collected as a `narrow` search's are, whatever the estimate.
     */
    sparse?: boolean;
  };
}

export interface ListPageRequest {
  limit: number;
  offset: number;
  /** The list's exact-count limit (LIST_EXACT_COUNT_LIMIT); a search's is lower (`exactCountLimit`). */
  exactLimit: number;
}

export interface ListPage<Row> {
  rows: Row[];
  /** Exact: one row more than the page was read. */
  hasNextPage: boolean;
  counted: Counted;
}

const keyName = (key: SortKey) => key.name ?? key.expr.slice(key.expr.lastIndexOf('.') + 1);
const orderSql = (keys: SortKey[], name: (key: SortKey) => string) =>
  keys.map((key) => `${name(key)}${key.desc ? ' DESC' : ''}`).join(', ');

/**
 * One page of a list and its total (docs/architecture.md, "Lists"; docs/benchmarks.md, "lists"):
 * - the page reads ids from the list index first (index-only, so a deep OFFSET skips index entries, not table rows),
 *   then the shown rows (`view`);
 * - the total is exact up to the exact-count limit, PostgreSQL's estimate beyond (`exact: false`);
 * - a search PostgreSQL expects to be narrow (`isBroadSearch`) collects its matches, up to SEARCH_COLLECT_FACTOR ×
 *   the limit, in one statement that answers the page and the exact total together;
 * - a broad one (or a "narrow" one with more matches after all) first walks the newest rows of the list in order and
 *   keeps the matches: a broad search finds its page there instead of collecting every match through the indexes
 *   and sorting them; with too few matches there, the indexes answer; a walked search is counted within the walk;
 * - an `ordered` search (an equality whose index holds the list's order) is read like a plain list: its page in order
 *   from that index, its total capped-counted, whatever the number of matches;
 * - a `narrow` one (its repository knows the matches are few) is collected whatever PostgreSQL expects, by a statement
 *   planned for reading every match (so through the search's indexes, not in the list's order); a `sparse` one (its
 *   repository expects them few) walks the newest rows first and is collected so when they hold too few.
 */
export async function readListPage<Row>(
  db: Queryable,
  list: ListDeclaration,
  filter: ListFilter,
  request: ListPageRequest,
): Promise<ListPage<Row>> {
  const { table, alias: a } = list;
  const { base, search } = filter;
  const { limit, offset } = request;
  const cap = exactCountLimit(!!search, request.exactLimit);
  const params = [...filter.params, ...(search?.params ?? [])];
  const n = params.length;
  const where = search ? `${base} AND ${search.indexed}` : base;
  const order = orderSql(list.order, (key) => key.expr);
  const from = `FROM ${table} ${a}`;
  const page = `LIMIT $${n + 1} OFFSET $${n + 2}`;
  const pageParams = [...params, limit + 1, offset];

  const estimate = await estimateRows(db, `SELECT 1 ${from} WHERE ${where}`, params);
  // The list's own estimate, read once and only where it is needed: a search above SEARCH_BROAD, or a walked count.
  let listEstimate: Promise<number> | undefined;
  const listRows = () => (listEstimate ??= estimateRows(db, `SELECT 1 ${from} WHERE ${base}`, filter.params));
  // An ordered search is read like a plain list (its index holds the order); only the others are broad or narrow.
  const walkable = search && !search.ordered ? search : undefined;
  const broad =
    !!walkable &&
    !walkable.narrow &&
    !walkable.sparse &&
    needsListRows(estimate) &&
    isBroadSearch(estimate, await listRows());

  const window = (rows: number) =>
    `SELECT ${list.walk?.columns ?? `${a}.*`} ${from} WHERE ${base} ORDER BY ${order} LIMIT ${rows}`;
  const lookups = list.walk?.lookups ?? {};
  const joins = (search?.lookups ?? Object.keys(lookups))
    .map((name) => {
      if (!lookups[name]) throw new Error(`${table}: the walk declares no lookup "${name}"`);
      return lookups[name];
    })
    .join('\n');
  const walk = (rows: number, test: string) => `SELECT ${a}.id FROM (${window(rows)}) ${a} ${joins} WHERE ${test}`;

  let ids: string[] | undefined;
  let walked = false;
  let collected: Counted | undefined;
  // Every match (up to SEARCH_COLLECT_FACTOR times the exact-count limit) in one statement, which gives the page and
  // the total at once, exact since every match was read. More matches than that after all: the total is an estimate
  // above them, and the walk or the indexes below find the page. `everyMatch` (a `narrow` or `sparse` search): planned
  // for reading every match (a CTE is) and read only up to the limit; planned for the limit against PostgreSQL's
  // estimate of many matches, it would read the list in its order, waiting for matches that are few.
  const collect = async (found: NonNullable<ListFilter['search']>, everyMatch: boolean) => {
    const most = SEARCH_COLLECT_FACTOR * cap;
    const others = list.order.filter((key) => keyName(key) !== 'id');
    const matches =
      found.matches ??
      `SELECT ${a}.id${others.map((key) => `, ${key.expr}${key.name ? ` AS ${key.name}` : ''}`).join('')} ${from}
        WHERE ${where}`;
    const bounded = everyMatch
      ? `e AS MATERIALIZED (${matches}), m AS MATERIALIZED (SELECT * FROM e LIMIT ${most + 1})`
      : `m AS MATERIALIZED (${matches} LIMIT ${most + 1})`;
    const [row]: Array<{ total: number; ids: string[] }> = await db.query(
      `WITH ${bounded}
       SELECT (SELECT count(*)::int FROM m) AS total,
              ARRAY(SELECT id FROM m ORDER BY ${orderSql(list.order, keyName)} ${page}) AS ids`,
      pageParams,
    );
    collected = collectedTotal(row.total, most, estimate);
    if (collected.exact) ids = row.ids;
  };
  // Expected narrow, or known to be: collected first.
  if (walkable && !broad && !walkable.sparse) await collect(walkable, !!walkable.narrow);
  // A walked search is counted within the newest rows (a sample, unless they are the whole list): counting it through
  // the indexes would collect every match.
  const countWalked = (found: NonNullable<ListFilter['search']>) =>
    listRows().then((rows) =>
      walkedCount(
        db,
        window(SEARCH_WALK_ROWS.narrow),
        walk(SEARCH_WALK_ROWS.narrow, found.joined),
        filter.params,
        found.params,
        SEARCH_WALK_ROWS.narrow,
        rows,
        cap,
      ),
    );
  let walkCounting: Promise<Counted> | undefined;
  const walkSize = walkRows(broad);
  if (walkable && !ids && pageWithinWalk(offset, limit, walkSize)) {
    // A broad search's page is nearly always in the walk: its count, which does not wait for the walk, runs beside it
    // (on a connection of its own) and is dropped in the rare case the walk holds too few.
    if (broad) {
      walkCounting = countWalked(walkable);
      walkCounting.catch(() => undefined);
    }
    // First the newest rows of the list, in order, filtered row by row: enough for a page when the search is broad,
    // a few milliseconds lost when it is not.
    const rows: Array<{ id: string }> = await db.query(
      `${walk(walkSize, walkable.joined)} ORDER BY ${order} ${page}`,
      pageParams,
    );
    // Enough matches within the walk; otherwise they are sparse after all and the indexes answer below.
    if (rows.length > limit) {
      ids = rows.map((r) => r.id);
      walked = true;
    }
  }
  // A `sparse` search without its page in the walk (too few there, or a page past it): collected.
  if (walkable?.sparse && !ids) await collect(walkable, true);

  const count = (): Promise<Counted> =>
    collected
      ? Promise.resolve(collected)
      : walked && search
        ? (walkCounting ?? countWalked(search))
        : cappedCount(db, `SELECT 1 ${from} WHERE ${where}`, params, estimate, cap);

  if (!ids && list.view.inline) {
    const [rows, counted] = await Promise.all([
      db.query(`${list.view.select} WHERE ${where} ORDER BY ${order} ${page}`, pageParams) as Promise<Row[]>,
      count(),
    ]);
    return { rows: rows.slice(0, limit), hasNextPage: rows.length > limit, counted };
  }
  if (!ids) {
    const rows: Array<{ id: string }> = await db.query(
      `SELECT ${a}.id ${from} WHERE ${where} ORDER BY ${order} ${page}`,
      pageParams,
    );
    ids = rows.map((r) => r.id);
  }
  const shown = ids.slice(0, limit);
  const [rows, counted] = await Promise.all([
    shown.length
      ? (db.query(`${list.view.select} WHERE ${a}.id = ANY($1::uuid[]) ORDER BY ${order}`, [shown]) as Promise<Row[]>)
      : Promise.resolve([] as Row[]),
    count(),
  ]);
  return { rows, hasNextPage: ids.length > limit, counted };
}
