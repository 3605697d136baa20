import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';
import type { Queryable } from '../../database/list/list-counts';
import { ListDeclaration, ListPageRequest, readListPage } from '../../database/list/list-page';
import {
  pathPlaceholders,
  SearchPath,
  searchForms,
  searchParams,
  searchPathQuery,
  WORD_BRANCHES,
  WordBranch,
} from './redemption-search.sql';
import { DataCipher } from '../../config/data-cipher';
import { macPackageLinks } from './mac-package-links';
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
  /** Its code was refunded after redemption (docs/product.md §19.3); the key stays with the customer. */
  refundedAt: Date | null;
  /** Held for review by a risk rule (docs/product.md §25.2): no key, the lists show "Held for review". */
  heldForReview: boolean;
  /** The customer's personal data was erased at their request (docs/product.md §21.3): names and e-mail empty. */
  erasedAt: Date | null;
  /** The latest assignment; a manual key is exposed as stored (`MANUAL_…`), the client strips the prefix. */
  assignedLicenseKey: { licenseKey: string; downloadLink: string } | null;
  /** Mac products: the licence package link the order e-mail gives (docs/product.md §12.7). */
  activationLink: string | null;
}

export interface RedemptionListCriteria {
  showExported: boolean;
  emailStatus?: string;
  search?: string;
}

/**
 * The redemption list's filter, for the list pages and the export of the list as filtered on screen.
 * `base` filters `r` (redemptions) alone, as the list indexes (exported, [email_status,] redeemed_at DESC, id)
 * read it; a search adds the parameters of its path (`redemption-search.sql.ts`: a full name, the start of a word, or
 * inside a word, docs/product.md §11.12) and three forms of the same test:
 * - `matches`: every matching row once, `base` included, for collecting a narrow search's matches in one statement;
 * - `indexed`: on `r` alone, through the search's indexes (one branch per table instead of one OR across joined
 *   tables, which PostgreSQL could only answer by reading every redemption);
 * - `joined`: on `r` and the joined `v` (voucher_codes) and `c` (customers) columns, for walking rows in order.
 * The name searched is the one given with each redemption (docs/product.md §11.6); the e-mail is the customer's,
 * one row per e-mail, so one index entry serves all of that e-mail's redemptions.
 */
export function redemptionListFilter(
  criteria: RedemptionListCriteria,
  path: SearchPath = 'inside',
  branches: readonly WordBranch[] = WORD_BRANCHES,
) {
  const params: unknown[] = [criteria.showExported];
  const where = ['r.exported = $1'];
  if (criteria.emailStatus) {
    params.push(criteria.emailStatus);
    where.push(`r.email_status = $${params.length}`);
  }
  const base = where.join(' AND ');
  if (!criteria.search) return { params, base, search: undefined };
  const searchParameters = searchParams(path, criteria.search, branches);
  return {
    params,
    base,
    search: {
      params: searchParameters,
      ...searchForms(path, base, pathPlaceholders(path, params.length + 1, branches), branches),
    },
  };
}

/**
 * Columns of the admin view; `r` is a redemptions row (or a page of them). No N+1: one joined query per page.
 * The customer's details are the redemption's own, as given with it; only the e-mail is the customer row's.
 */
const VIEW_SQL = (source: string) => `
SELECT r.id, r.voucher_code_id, r.customer_id, r.product_id, r.email_status, r.awaiting_license,
       r.redeemed_at, r.exported, r.exported_at, r.refunded_at, r.erased_at, r.held_at,
       v.code, r.first_name, r.last_name, coalesce(c.email, '') AS email, r.phone, r.country, r.zip_code,
       p.name AS product_name, p.is_license_managed, p.activation_link, lk.license_key, lk.key_ciphertext,
       lk.download_link
  FROM ${source} r
  JOIN voucher_codes v ON v.id = r.voucher_code_id
  JOIN customers c ON c.id = r.customer_id
  JOIN products p ON p.id = r.product_id
  LEFT JOIN LATERAL (${latestLicenseKeySql('r')}) lk ON true`;

/**
 * The admin redemption list, declared to the list module (docs/architecture.md, "Lists"). Both list indexes are
 * (exported, [email_status,] redeemed_at DESC, id): this order reads them directly. A walked row looks its code and
 * customer up row by row (OFFSET 0 keeps PostgreSQL from turning the lookups into hash joins over whole tables); the
 * window is `r` again, so the joined test reads the redemption's own name from it.
 */
const REDEMPTION_LIST: ListDeclaration = {
  table: 'redemptions',
  alias: 'r',
  order: [{ expr: 'r.redeemed_at', desc: true }, { expr: 'r.id' }],
  view: { select: VIEW_SQL('redemptions') },
  walk: {
    columns: 'r.id, r.voucher_code_id, r.customer_id, r.redeemed_at, r.first_name, r.last_name',
    lookups: {
      c: `CROSS JOIN LATERAL (SELECT c.email FROM customers c WHERE c.id = r.customer_id OFFSET 0) c`,
      v: `CROSS JOIN LATERAL (SELECT v.code FROM voucher_codes v WHERE v.id = r.voucher_code_id OFFSET 0) v`,
    },
  },
};

/** The admin redemption list's queries (docs/benchmarks.md, "lists"). */
@Injectable()
export class RedemptionListRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * One page (`hasNextPage` exact) and the list's count, as every list reads them (`readListPage`): ids from the list
   * index first, then the shown rows. A search first chooses its path (one statement of index probes): a full name
   * is read in order from idx_redemptions_name_list; the others are narrow or broad by the list module's rule (the
   * branches of `redemptionListFilter` collect a narrow one, the walk finds a broad one's page). The start of a word
   * is searched only where the list holds it (codes, e-mails, names).
   */
  async page(criteria: RedemptionListCriteria, request: ListPageRequest) {
    const db = this.database.manager.connection;
    const plain = redemptionListFilter({ ...criteria, search: undefined });
    const found = criteria.search ? await this.searchPath(db, plain.base, plain.params, criteria.search) : undefined;
    const filter = redemptionListFilter(criteria, found?.path, found?.branches);
    const { rows, hasNextPage, counted } = await readListPage<Record<string, any>>(
      db,
      REDEMPTION_LIST,
      filter,
      request,
    );
    return { redemptions: rows.map((row) => toView(row, this.cipher)), hasNextPage, counted };
  }

  /** Which path answers `term` in the list filtered by `base`, and where it starts words: one statement of probes. */
  private async searchPath(db: Queryable, base: string, params: unknown[], term: string) {
    const query = searchPathQuery(base, params, term);
    const [row]: Array<{ path: SearchPath; branches: WordBranch[] }> = await db.query(query.sql, query.params);
    return row;
  }

  async findView(id: string): Promise<AdminRedemptionView | undefined> {
    const db = this.database.current;
    const [row] = await db.query(`${VIEW_SQL('redemptions')} WHERE r.id = $1`, [id]);
    return row ? toView(row, this.cipher) : undefined;
  }
}

/** The licence key is opened here (docs/product.md §18.1): SQL only ever sees its ciphertext. */
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
    heldForReview: row.held_at !== null && row.refunded_at === null,
    erasedAt: row.erased_at,
    assignedLicenseKey: licenseKey ? { licenseKey, downloadLink: row.download_link } : null,
    activationLink: macPackageLinks({
      product_name: row.product_name,
      is_license_managed: row.is_license_managed,
      activation_link: row.activation_link,
      removal_tool_link: null,
      license_link: licenseKey ? row.download_link : null,
    }).activationLink,
  };
}
