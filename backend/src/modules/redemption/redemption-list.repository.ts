import { Injectable } from '@nestjs/common';
import { DatabaseService, Db } from '../../database/database.service';
import { cappedCount, estimateRows, walkedCount } from '../../database/list-counts';
import { likeContains } from '../../common/utils/sql';
import { DataCipher } from '../../config/data-cipher';
import { latestLicenseKeySql, openStoredKey, StoredKeyColumns } from '../license/license.repository';

export interface AdminRedemptionView {
  id: string;
  voucherCodeId: string;
  customerId: string;
  productId: string;
  voucherCode: { id: string; code: string };
  customer: {
    id: string;
    firstName: string;
    lastName: string;
    email: string;
    phone: string | null;
    country: string | null;
    zipCode: string | null;
  };
  product: { id: string; name: string };
  emailStatus: string;
  isManualProcessing: boolean;
  redeemedAt: Date;
  exported: boolean;
  exportedAt: Date | null;
  /** Its code was refunded after redemption (DECISIONS §13); the key stays with the customer. */
  refundedAt: Date | null;
  /** The customer's personal data was erased at their request (docs/product.md, "Erasure"): names and e-mail empty. */
  erasedAt: Date | null;
  /** The latest assignment; a manual key is exposed as stored (`MANUAL_…`), the client strips the prefix. */
  assignedLicenseKey: { licenseKey: string; downloadLink: string } | null;
}

export interface RedemptionListCriteria {
  showExported: boolean;
  emailStatus?: string;
  search?: string;
}

/**
 * The redemption list's filter, for the list pages and the export of the list as filtered on screen.
 * `base` filters `r` (redemptions) alone, as the list indexes (exported, [email_status,] redeemed_at DESC, id)
 * read it; a search adds its pattern as the last parameter and three forms of the same test:
 * - `matches`: every matching row once, `base` included, for collecting a narrow search's matches in one statement;
 * - `indexed`: on `r` alone, three trigram-index branches (code, idx_voucher_codes_code_trgm; e-mail,
 *   idx_customers_email_trgm; the redemption's own full name, idx_redemptions_full_name_trgm) instead of one OR
 *   across joined tables, which PostgreSQL could only answer by reading every redemption;
 * - `joined`: on `r` and the joined `v` (voucher_codes) and `c` (customers) columns, for walking rows in order.
 * The name searched is the one given with each redemption (docs/product.md, "Redemption"); the e-mail is the customer's,
 * one row per e-mail, so one index entry serves all of that e-mail's redemptions.
 */
export function redemptionListFilter(criteria: RedemptionListCriteria) {
  const params: unknown[] = [criteria.showExported];
  const where = ['r.exported = $1'];
  if (criteria.emailStatus) {
    params.push(criteria.emailStatus);
    where.push(`r.email_status = $${params.length}`);
  }
  const base = where.join(' AND ');
  if (!criteria.search) return { params, base, search: undefined };
  params.push(likeContains(criteria.search));
  const p = `$${params.length}`;
  // The expression of idx_redemptions_full_name_trgm: "Ann Lee" finds Ann Lee.
  const nameMatches = (r: string) => `(${r}.first_name || ' ' || ${r}.last_name) ILIKE ${p}`;
  const emailMatches = (c: string) => `${c}.email ILIKE ${p}`;
  // An erased customer's e-mail is null (docs/product.md, "Erasure"): "not an e-mail match" must be true for it.
  const notEmailMatch = (c: string) => `(${emailMatches(c)}) IS NOT TRUE`;
  return {
    params,
    base,
    search: {
      // UNION ALL, so a LIMIT stops it early: each branch leaves out the rows an earlier one returns (code, then
      // e-mail, then name: the name branch leaves out e-mail matches, the code branch both).
      matches: `SELECT r.id, r.redeemed_at FROM voucher_codes v2 JOIN redemptions r ON r.voucher_code_id = v2.id
                  JOIN customers c2 ON c2.id = r.customer_id
                 WHERE v2.code ILIKE ${p} AND ${base} AND ${notEmailMatch('c2')} AND NOT ${nameMatches('r')}
                UNION ALL
                SELECT r.id, r.redeemed_at FROM customers c3 JOIN redemptions r ON r.customer_id = c3.id
                 WHERE ${emailMatches('c3')} AND ${base}
                UNION ALL
                SELECT r.id, r.redeemed_at FROM redemptions r JOIN customers c4 ON c4.id = r.customer_id
                 WHERE ${nameMatches('r')} AND ${base} AND ${notEmailMatch('c4')}`,
      indexed: `r.id IN (
        SELECT r2.id FROM voucher_codes v2 JOIN redemptions r2 ON r2.voucher_code_id = v2.id WHERE v2.code ILIKE ${p}
        UNION
        SELECT r3.id FROM customers c3 JOIN redemptions r3 ON r3.customer_id = c3.id WHERE ${emailMatches('c3')}
        UNION
        SELECT r4.id FROM redemptions r4 WHERE ${nameMatches('r4')})`,
      joined: `(v.code ILIKE ${p} OR ${emailMatches('c')} OR ${nameMatches('r')})`,
    },
  };
}

/**
 * Columns of the admin view; `r` is a redemptions row (or a page of them). No N+1: one joined query per page.
 * The customer's details are the redemption's own, as given with it; only the e-mail is the customer row's.
 */
const VIEW_SQL = (source: string) => `
SELECT r.id, r.voucher_code_id, r.customer_id, r.product_id, r.email_status, r.awaiting_license,
       r.redeemed_at, r.exported, r.exported_at, r.refunded_at, r.erased_at,
       v.code, r.first_name, r.last_name, coalesce(c.email, '') AS email, r.phone, r.country, r.zip_code,
       p.name AS product_name, lk.license_key, lk.key_ciphertext, lk.download_link
  FROM ${source} r
  JOIN voucher_codes v ON v.id = r.voucher_code_id
  JOIN customers c ON c.id = r.customer_id
  JOIN products p ON p.id = r.product_id
  LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true`;

/** Both list indexes are (exported, [email_status,] redeemed_at DESC, id): this order reads them directly. */
const LIST_ORDER = 'r.redeemed_at DESC, r.id';

/**
 * A search first walks this many of the list's newest rows (the more when PostgreSQL expects more than
 * SEARCH_BROAD matches); with too few matches there, the trigram indexes answer.
 */
const SEARCH_WALK_ROWS = { narrow: 1000, broad: 5000 };
/**
 * A search is broad when PostgreSQL expects more matches than SEARCH_BROAD and more than SEARCH_BROAD_SHARE of the
 * list. Its estimate of a trigram pattern never goes below about 1/10,000 of the table, whatever the pattern: at ten
 * million redemptions an exact code is expected to match about 2,000 rows, as many as a broad search at one million.
 */
const SEARCH_BROAD = 2000;
const SEARCH_BROAD_SHARE = 0.001;
/** A search expected narrow reads up to this many times the exact-count limit of matches in one statement. */
const SEARCH_COLLECT_FACTOR = 3;

/** The admin redemption list's queries (docs/benchmarks.md, "lists"). */
@Injectable()
export class RedemptionListRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * One page (up to `limit + 1` views: the extra one tells hasNextPage exactly) and the list's count:
   * - the page reads ids from the list index first (index-only, so a deep OFFSET skips index entries, not
   *   table rows), then joins the rows it shows;
   * - the count is exact up to `exactLimit` matches, PostgreSQL's estimate beyond (`exact: false`);
   * - a search PostgreSQL expects to be narrow collects its matches (up to SEARCH_COLLECT_FACTOR × `exactLimit`)
   *   in one statement that answers the page and the exact total together;
   * - a broad one (or a "narrow" one with more matches after all) first walks the newest SEARCH_WALK_ROWS rows of
   *   the list in order and keeps the matches: a broad search finds its page there instead of collecting every
   *   match through the trigram indexes and sorting them; with too few matches there, the indexes answer.
   */
  async page(criteria: RedemptionListCriteria, limit: number, offset: number, exactLimit: number) {
    const db = this.database.manager.connection;
    const { params, base, search } = redemptionListFilter(criteria);
    const filter = search ? `${base} AND ${search.indexed}` : base;
    const n = params.length;
    const estimate = await estimateRows(db, `SELECT 1 FROM redemptions r WHERE ${filter}`, params);
    // The list's own estimate, read once and only where it is needed: a search above SEARCH_BROAD, or a walked count.
    let listEstimate: Promise<number> | undefined;
    const listRows = () =>
      (listEstimate ??= estimateRows(db, `SELECT 1 FROM redemptions r WHERE ${base}`, params.slice(0, -1)));
    const broad = !!search && estimate > SEARCH_BROAD && estimate > SEARCH_BROAD_SHARE * (await listRows());

    const walkRows = broad ? SEARCH_WALK_ROWS.broad : SEARCH_WALK_ROWS.narrow;
    const windowSql = (rows: number) => `SELECT r.id, r.voucher_code_id, r.customer_id, r.redeemed_at, r.first_name,
                               r.last_name FROM redemptions r
                        WHERE ${base} ORDER BY ${LIST_ORDER} LIMIT ${rows}`;
    // Row by row (OFFSET 0 keeps PostgreSQL from turning the lookups into hash joins over whole tables). The window
    // is `r` again, so the joined test reads the redemption's own name from it.
    const walkSql = (rows: number, test: string) => `SELECT r.id FROM (${windowSql(rows)}) r
           CROSS JOIN LATERAL (SELECT c.email FROM customers c WHERE c.id = r.customer_id OFFSET 0) c
           CROSS JOIN LATERAL (SELECT v.code FROM voucher_codes v WHERE v.id = r.voucher_code_id OFFSET 0) v
          WHERE ${test}`;
    let ids: string[] | undefined;
    let walked = false;
    let collected: { count: number; exact: boolean } | undefined;
    if (search && !broad) {
      // Expected narrow: every match (up to SEARCH_COLLECT_FACTOR times the exact-count limit) in one statement,
      // which gives the page and the total at once, exact since every match was read. More matches than that
      // after all: the total is an estimate above them, and the walk or the indexes below find the page.
      const cap = SEARCH_COLLECT_FACTOR * exactLimit;
      const [row]: Array<{ total: number; ids: string[] }> = await db.query(
        `WITH m AS MATERIALIZED (${search.matches} LIMIT ${cap + 1})
         SELECT (SELECT count(*)::int FROM m) AS total,
                ARRAY(SELECT id FROM m ORDER BY redeemed_at DESC, id LIMIT $${n + 1} OFFSET $${n + 2}) AS ids`,
        [...params, limit + 1, offset],
      );
      if (row.total <= cap) {
        ids = row.ids;
        collected = { count: row.total, exact: true };
      } else {
        collected = { count: Math.max(estimate, cap + 1), exact: false };
      }
    }
    if (search && !ids && offset + limit < walkRows) {
      // First the newest SEARCH_WALK_ROWS rows of the list, in order, filtered row by row: enough for a page
      // when the search is broad, a few milliseconds lost when it is not.
      const rows: Array<{ id: string }> = await db.query(
        `${walkSql(walkRows, search.joined)} ORDER BY r.redeemed_at DESC, r.id LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit + 1, offset],
      );
      // Enough matches within the walk; otherwise they are sparse after all and the indexes answer below.
      if (rows.length > limit) {
        ids = rows.map((r) => r.id);
        walked = true;
      }
    }
    if (!ids) {
      const rows: Array<{ id: string }> = await db.query(
        `SELECT r.id FROM redemptions r WHERE ${filter} ORDER BY ${LIST_ORDER} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, limit + 1, offset],
      );
      ids = rows.map((r) => r.id);
    }
    const shown = ids.slice(0, limit);

    const [rows, counted] = await Promise.all([
      shown.length
        ? db.query(`${VIEW_SQL('redemptions')} WHERE r.id = ANY($1::uuid[]) ORDER BY ${LIST_ORDER}`, [shown])
        : Promise.resolve([]),
      // A walked search is counted within the newest rows (a sample, unless they are the whole list): counting
      // it through the indexes would collect every match.
      collected
        ? Promise.resolve(collected)
        : walked && search
        ? listRows().then((listEstimate) =>
            walkedCount(
              db,
              windowSql(SEARCH_WALK_ROWS.narrow),
              walkSql(SEARCH_WALK_ROWS.narrow, search.joined),
              params.slice(0, -1),
              params.slice(-1),
              SEARCH_WALK_ROWS.narrow,
              listEstimate,
              exactLimit,
            ),
          )
        : cappedCount(db, `SELECT 1 FROM redemptions r WHERE ${filter}`, params, estimate, exactLimit),
    ]);
    return { redemptions: (rows as Array<Record<string, any>>).map((row) => toView(row, this.cipher)), hasNextPage: ids.length > limit, counted };
  }

  async findView(id: string, db: Db = this.database.manager): Promise<AdminRedemptionView | undefined> {
    const [row] = await db.query(`${VIEW_SQL('redemptions')} WHERE r.id = $1`, [id]);
    return row ? toView(row, this.cipher) : undefined;
  }
}

/** The licence key is opened here (DECISIONS §12): SQL only ever sees its ciphertext. */
function toView(row: Record<string, any>, cipher: DataCipher): AdminRedemptionView {
  const licenseKey = openStoredKey(cipher, row as StoredKeyColumns);
  return {
    id: row.id,
    voucherCodeId: row.voucher_code_id,
    customerId: row.customer_id,
    productId: row.product_id,
    voucherCode: { id: row.voucher_code_id, code: row.code },
    customer: {
      id: row.customer_id,
      firstName: row.first_name,
      lastName: row.last_name,
      email: row.email,
      phone: row.phone,
      country: row.country,
      zipCode: row.zip_code,
    },
    product: { id: row.product_id, name: row.product_name },
    emailStatus: row.email_status,
    isManualProcessing: row.awaiting_license,
    redeemedAt: row.redeemed_at,
    exported: row.exported,
    exportedAt: row.exported_at,
    refundedAt: row.refunded_at,
    erasedAt: row.erased_at,
    assignedLicenseKey: licenseKey ? { licenseKey, downloadLink: row.download_link } : null,
  };
}
