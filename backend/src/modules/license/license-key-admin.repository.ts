import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { ListDeclaration, ListFilter, ListPageRequest, readListPage } from '../../database/list/list-page';
import { keyCountsDeltaSql, keyRowStateSql } from '../../common/utils/counters-sql';
import { likeContains } from '../../common/utils/sql';
import { UsageState } from './dto/license-key.dto';
import { lowerPoolStartSql } from './license-pool-start.repository';
import {
  LicenseRepository,
  openStoredKey,
  rehashStaleKey,
  sealedKeyColumns,
  StoredKeyColumns,
} from './license.repository';

/** docs/product.md §5.5 usage state, as SQL: 0 available, 1 partially used, 2 fully used (also the list's sort key). */
const USAGE_RANK = `CASE WHEN k.current_activations = 0 THEN 0
                         WHEN k.current_activations < k.max_activations THEN 1 ELSE 2 END`;
const USAGE_BY_NAME: Record<UsageState, number> = { available: 0, 'partially-used': 1, 'fully-used': 2 };
const USAGE_NAMES: UsageState[] = ['available', 'partially-used', 'fully-used'];

/** `MANUAL_` keys belong to single redemptions (docs/product.md §14.1): never listed, never counted. */
const NOT_MANUAL = `NOT k.is_manual`;

const KEY_COLUMNS = `k.id, k.product_id, p.name AS product_name, k.license_key, k.key_ciphertext, k.download_link, k.license_type,
  k.max_activations, k.current_activations, k.is_active, k.created_at, k.updated_at, ${USAGE_RANK} AS usage_rank`;

/**
 * The pool list, declared to the list module (docs/architecture.md, "Lists"): docs/product.md §5.5 order (available, partially
 * used, fully used; newest first within each), held by idx_license_keys_list / idx_license_keys_product_list
 * (migration 1763700005010), whose expression and predicate are USAGE_RANK and NOT_MANUAL word for word. The shown
 * rows join their product by primary key: read with the page (`inline`), one statement as before. A walked key is
 * tested on its own row.
 */
const LICENSE_KEY_LIST: ListDeclaration = {
  table: 'license_keys',
  alias: 'k',
  order: [
    { expr: USAGE_RANK, name: 'usage_rank' },
    { expr: 'k.created_at', desc: true },
    { expr: 'k.id', desc: true },
  ],
  view: { select: `SELECT ${KEY_COLUMNS} FROM license_keys k JOIN products p ON p.id = k.product_id`, inline: true },
  walk: { columns: 'k.id, k.current_activations, k.max_activations, k.created_at, k.key_last, k.key_hash' },
};

export interface LicenseKeyView {
  id: string;
  productId: string;
  productName: string;
  licenseKey: string;
  downloadLink: string;
  licenseType: string;
  maxActivations: number;
  currentActivations: number;
  isActive: boolean;
  usageStatus: UsageState;
  createdAt: Date;
  updatedAt: Date;
}

export interface LicenseKeySummary {
  totalKeys: number;
  active: number;
  available: number;
  partiallyUsed: number;
  fullyUsed: number;
}

export interface LicenseKeyFilter {
  productId?: string;
  search?: string;
  status?: UsageState;
}

/**
 * The licence-key admin (docs/product.md §5.5): the pool list and its summary, adding, (de)activating and deleting
 * pool keys. Split from LicenseRepository, which keeps what redemptions and their assignments use (the pool's free
 * keys, manual and volume keys given to redemptions). Each write adds its change of the pool summary to
 * `license_key_counts` in the same statement (issue 26: no counter triggers; common/utils/counters-sql.ts).
 */
@Injectable()
export class LicenseKeyAdminRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
    private readonly licenses: LicenseRepository,
  ) {}

  /** The licence screens' product picker (LicenseRepository reads it for the pool forecast too). */
  licenseManagedProducts() {
    return this.licenses.licenseManagedProducts();
  }

  /**
   * One page of the pool list (`hasNextPage` exact), its total (exact up to `exactLimit`, estimated beyond) and the
   * summary of the product filter's keys, whatever the search or state; the page and its total are read as every list
   * is (`readListPage`, declared by LICENSE_KEY_LIST). A search tests the clear last characters
   * (idx_license_keys_key_trgm) or a whole key by its keyed hash (uq_license_keys_product_hash).
   */
  async list(filter: LicenseKeyFilter, request: ListPageRequest) {
    const where: string[] = [NOT_MANUAL];
    const params: unknown[] = [];
    if (filter.productId) {
      params.push(filter.productId);
      where.push(`k.product_id = $${params.length}`);
    }
    if (filter.status) {
      params.push(USAGE_BY_NAME[filter.status]);
      where.push(`${USAGE_RANK} = $${params.length}`);
    }
    let search: ListFilter['search'];
    if (filter.search) {
      const term = filter.search.trim();
      const hashes = [...new Set([term, term.toUpperCase()])].flatMap((s) => this.hashes(s));
      const test = `(k.key_last ILIKE $${params.length + 1} OR k.key_hash = ANY($${params.length + 2}::bytea[]))`;
      search = { params: [likeContains(term), hashes], indexed: test, joined: test };
    }
    const db = this.database.manager;
    const [page, [summary]] = await Promise.all([
      readListPage<Record<string, any>>(
        db.connection,
        LICENSE_KEY_LIST,
        { params, base: where.join(' AND '), search },
        request,
      ),
      // The counters of migration 1763820000000 (kept by every writer of license_keys, MANUAL_ keys left out): a
      // few rows a product instead of a count of the pool.
      db.query(
        `SELECT coalesce(sum(total), 0)::int AS total, coalesce(sum(active), 0)::int AS active,
                coalesce(sum(available), 0)::int AS available, coalesce(sum(partially_used), 0)::int AS partial,
                coalesce(sum(fully_used), 0)::int AS full
           FROM license_key_counts WHERE $1::uuid IS NULL OR product_id = $1`,
        [filter.productId ?? null],
      ),
    ]);
    const { rows: found, hasNextPage, counted } = page;
    return {
      keys: found.map((row) => this.toView(row)),
      hasNextPage,
      counted,
      summary: {
        totalKeys: summary.total,
        active: summary.active,
        available: summary.available,
        partiallyUsed: summary.partial,
        fullyUsed: summary.full,
      } satisfies LicenseKeySummary,
    };
  }

  async findView(id: string): Promise<LicenseKeyView | undefined> {
    const [row] = await this.database.manager.query(
      `SELECT ${KEY_COLUMNS} FROM license_keys k JOIN products p ON p.id = k.product_id WHERE k.id = $1`,
      [id],
    );
    return row ? this.toView(row) : undefined;
  }

  /**
   * A pool key; the product check and the insert are one statement, so no key is written for a missing or
   * unmanaged product (undefined then). A duplicate raises uq_license_keys_product_hash. The statement counts the
   * new key (`kc`) and moves its product's pool start back to it if need be (`ps`).
   */
  async insertPoolKey(key: {
    productId: string;
    licenseKey: string;
    downloadLink: string;
    licenseType: string;
    maxActivations: number;
  }): Promise<string | undefined> {
    const db = this.database.manager;
    await rehashStaleKey(db, this.cipher, key.productId, key.licenseKey);
    const sealed = sealedKeyColumns(this.cipher, key.licenseKey);
    const [row] = await db.query(
      `WITH k AS (
         INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, download_link, license_type, max_activations)
         SELECT p.id, $2, $3, $4, $5, $6, $7 FROM products p WHERE p.id = $1 AND p.is_license_managed
         RETURNING *
       ), kc AS (${keyCountsDeltaSql(`SELECT k.product_id, ${keyRowStateSql('k')} FROM k WHERE NOT k.is_manual`)}
       ), ps AS (${lowerPoolStartSql('k')})
       SELECT id FROM k`,
      [
        key.productId,
        sealed.ciphertext,
        sealed.hash,
        sealed.last,
        key.downloadLink,
        key.licenseType,
        key.maxActivations,
      ],
    );
    return row?.id;
  }

  /** The keyed hashes a clear key may be stored under: the current key's, and the previous one's while rotating. */
  private hashes(storedKey: string): Buffer[] {
    const previous = this.cipher.previousHash(storedKey);
    return previous ? [this.cipher.hash(storedKey), previous] : [this.cipher.hash(storedKey)];
  }

  /** Why a key could not be added: undefined = no such product (reads `products`, the product module's table). */
  async productIsLicenseManaged(productId: string): Promise<boolean | undefined> {
    const [product] = await this.database.manager.query(`SELECT is_license_managed FROM products WHERE id = $1`, [
      productId,
    ]);
    return product?.is_license_managed;
  }

  /**
   * False when there is no such pool key (`MANUAL_` keys are not the pool's). `o` row-locks the key and reads its
   * state before the change (the lock the UPDATE takes anyway), so the summary moves by exactly the change; a key
   * switched on moves its product's pool start back to it if need be (`ps`).
   */
  async setActive(id: string, isActive: boolean): Promise<boolean> {
    const [{ n }]: Array<{ n: number }> = await this.database.manager.query(
      `WITH o AS MATERIALIZED (
         SELECT * FROM license_keys WHERE id = $1 AND NOT is_manual FOR NO KEY UPDATE
       ), u AS (
         UPDATE license_keys k SET is_active = $2, updated_at = now() FROM o WHERE k.id = o.id RETURNING k.*
       ), kc AS (${keyCountsDeltaSql(
         `SELECT u.product_id, ${keyRowStateSql('u')} FROM u UNION ALL SELECT o.product_id, ${keyRowStateSql('o', -1)} FROM o`,
       )}), ps AS (${lowerPoolStartSql('u')})
       SELECT count(*)::int AS n FROM u`,
      [id, isActive],
    );
    return n > 0;
  }

  /**
   * Deletes a key nobody has received. The conditions sit in the DELETE itself: an assignment bumps
   * current_activations under the key's row lock, so a key assigned concurrently is never deleted. The statement
   * takes the key off the summary.
   */
  async deleteUnassigned(id: string): Promise<{ productId: string } | undefined> {
    const [row]: Array<{ product_id: string }> = await this.database.manager.query(
      `WITH d AS (
         DELETE FROM license_keys k
          WHERE k.id = $1 AND ${NOT_MANUAL} AND k.current_activations = 0
            AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.license_key_id = k.id)
         RETURNING k.*
       ), kc AS (${keyCountsDeltaSql(`SELECT d.product_id, ${keyRowStateSql('d', -1)} FROM d`)})
       SELECT id, product_id FROM d`,
      [id],
    );
    return row && { productId: row.product_id };
  }

  /** A pool key's use (undefined: no such pool key). */
  async usage(id: string): Promise<{ currentActivations: number; assignments: number } | undefined> {
    const [key] = await this.database.manager.query(
      `SELECT k.current_activations, (SELECT count(*)::int FROM license_assignments a WHERE a.license_key_id = k.id) AS assigned
         FROM license_keys k WHERE k.id = $1 AND ${NOT_MANUAL}`,
      [id],
    );
    return key && { currentActivations: key.current_activations, assignments: key.assigned };
  }

  private toView(row: Record<string, any>): LicenseKeyView {
    return toView(row, openStoredKey(this.cipher, row as StoredKeyColumns) ?? '');
  }
}

function toView(row: Record<string, any>, licenseKey: string): LicenseKeyView {
  return {
    id: row.id,
    productId: row.product_id,
    productName: row.product_name,
    licenseKey,
    downloadLink: row.download_link,
    licenseType: row.license_type,
    maxActivations: row.max_activations,
    currentActivations: row.current_activations,
    isActive: row.is_active,
    usageStatus: USAGE_NAMES[row.usage_rank],
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
