import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService, Db } from '../../database/database.service';
import { ListDeclaration, ListFilter, ListPageRequest, readListPage } from '../../database/list/list-page';
import { queryRows } from '../../database/query-rows';
import { likeContains, returnedRows } from '../../common/utils/sql';
import { UsageState } from './dto/license-key.dto';
import { LicenseAssignment } from './entities/license-assignment.entity';
import { keyLastChars, LicenseKey, MANUAL_KEY_PREFIX } from './entities/license-key.entity';

/**
 * The latest licence of a redemption (`license_key` and `key_ciphertext`, opened by `openStoredKey` in Node;
 * `download_link`), as a subquery for
 * `LEFT JOIN LATERAL (…) lk ON true`; `redemptionAlias` names the redemptions row (or anything with its `id`).
 * One redemption has one or two assignments: idx_license_assignments_redemption finds them, the sort is of
 * those few rows; `a.id` breaks a tie between two assignments of one transaction.
 */
export function latestLicenseKeySql(redemptionAlias: string): string {
  return `SELECT k.license_key, k.key_ciphertext, k.download_link FROM license_assignments a JOIN license_keys k ON k.id = a.license_key_id
     WHERE a.redemption_id = ${redemptionAlias}.id ORDER BY a.assigned_at DESC, a.id DESC LIMIT 1`;
}

/** A licence key row as read (sealed, or plain until the start-up step has sealed it). */
export interface StoredKeyColumns {
  license_key: string | null;
  key_ciphertext: Buffer | null;
}

/** The stored key (`MANUAL_` prefix included) of a row from `latestLicenseKeySql` or the key columns; null: none. */
export function openStoredKey(cipher: DataCipher, row: StoredKeyColumns): string | null {
  if (row.key_ciphertext) return cipher.open(row.key_ciphertext);
  return row.license_key ?? null;
}

/** What a new key row stores instead of the key: its ciphertext, keyed hash and clear last characters. */
export function sealedKeyColumns(cipher: DataCipher, storedKey: string) {
  return { ciphertext: cipher.seal(storedKey), hash: cipher.hash(storedKey), last: keyLastChars(storedKey) };
}

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

/** The free-key condition of idx_license_keys_pool (its partial WHERE), word for word. */
const FREE_KEY = `is_active AND current_activations < max_activations`;

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
 * The only code that touches `license_keys` and `license_assignments`. Keys are sealed here on the way in and
 * opened here on the way out (docs/product.md §18.1): SQL never sees a clear key.
 */
@Injectable()
export class LicenseRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Activations left per licence-managed product (the metrics' pool gauge): only the free keys are read, through
   * idx_license_keys_pool (its partial WHERE is FREE_KEY); `products` (product module) names them.
   */
  availableActivationsByProduct(): Promise<Array<{ productId: string; productName: string; available: number }>> {
    return queryRows(
      this.database.manager,
      `SELECT p.id AS "productId", p.name AS "productName",
              COALESCE((SELECT sum(max_activations - current_activations) FROM license_keys
                         WHERE product_id = p.id AND ${FREE_KEY} AND NOT is_manual), 0)::int AS available
         FROM products p WHERE p.is_license_managed ORDER BY p.name`,
    );
  }

  /** Reads `products` (the product module's table) for the licence screens' product picker. */
  async licenseManagedProducts(): Promise<Array<{ id: string; name: string; status: string; downloadLink: string }>> {
    const rows: Array<{ id: string; name: string; status: string; download_link: string }> =
      await this.database.manager.query(
        `SELECT id, name, status, download_link FROM products WHERE is_license_managed ORDER BY name`,
      );
    return rows.map((r) => ({ id: r.id, name: r.name, status: r.status, downloadLink: r.download_link }));
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
      // The counters of migration 1763820000000 (kept by triggers on license_keys, MANUAL_ keys left out): a few
      // rows a product instead of a count of the pool.
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
   * unmanaged product (undefined then). A duplicate raises uq_license_keys_product_hash.
   */
  async insertPoolKey(key: {
    productId: string;
    licenseKey: string;
    downloadLink: string;
    licenseType: string;
    maxActivations: number;
  }): Promise<string | undefined> {
    const db = this.database.manager;
    await this.rehashStale(db, key.productId, key.licenseKey);
    const sealed = sealedKeyColumns(this.cipher, key.licenseKey);
    const [row] = await db.query(
      `INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, download_link, license_type, max_activations)
       SELECT p.id, $2, $3, $4, $5, $6, $7 FROM products p WHERE p.id = $1 AND p.is_license_managed
       RETURNING id`,
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

  /**
   * While a rotation runs (DATA_KEY_PREVIOUS set), a row not yet rotated carries its hash under the previous key,
   * so the unique constraint would not see a new copy of it: the row with the same key is rotated first.
   */
  private async rehashStale(db: Db, productId: string, storedKey: string): Promise<void> {
    const previous = this.cipher.previousHash(storedKey);
    if (!previous) return;
    await db.query(
      `UPDATE license_keys SET key_hash = $3, key_ciphertext = $4 WHERE product_id = $1 AND key_hash = $2`,
      [productId, previous, this.cipher.hash(storedKey), this.cipher.seal(storedKey)],
    );
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

  /** False when there is no such pool key (`MANUAL_` keys are not the pool's). */
  async setActive(id: string, isActive: boolean): Promise<boolean> {
    const result = await this.database.manager
      .createQueryBuilder()
      .update(LicenseKey)
      .set({ isActive })
      .where('id = :id', { id })
      .andWhere('NOT is_manual')
      .execute();
    return !!result.affected;
  }

  /**
   * Deletes a key nobody has received. The conditions sit in the DELETE itself: an assignment bumps
   * current_activations under the key's row lock, so a key assigned concurrently is never deleted.
   */
  async deleteUnassigned(id: string): Promise<{ productId: string } | undefined> {
    const [row] = returnedRows<{ product_id: string }>(
      await this.database.manager.query(
        `DELETE FROM license_keys k
        WHERE k.id = $1 AND ${NOT_MANUAL} AND k.current_activations = 0
          AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.license_key_id = k.id)
        RETURNING k.id, k.product_id`,
        [id],
      ),
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

  /**
   * The oldest free key of a product, row-locked: unlike the redemption statement's SKIP LOCKED this waits for
   * a key a concurrent redemption holds (idx_license_keys_pool, walked in order).
   */
  async lockFreeKey(db: Db, productId: string): Promise<{ id: string } | undefined> {
    const [key] = await db.query(
      `SELECT id FROM license_keys WHERE product_id = $1 AND ${FREE_KEY} ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
      [productId],
    );
    return key;
  }

  async hasFreeKey(productId: string, db: Db = this.database.manager): Promise<boolean> {
    const [{ free }] = await db.query(
      `SELECT EXISTS (SELECT 1 FROM license_keys WHERE product_id = $1 AND ${FREE_KEY}) AS free`,
      [productId],
    );
    return free;
  }

  /** One activation more on a key locked by `lockFreeKey`, and its assignment to the redemption. */
  async assignPoolKey(db: Db, keyId: string, redemptionId: string): Promise<void> {
    await db.query(
      `UPDATE license_keys SET current_activations = current_activations + 1, updated_at = now() WHERE id = $1`,
      [keyId],
    );
    await db.getRepository(LicenseAssignment).insert({ licenseKeyId: keyId, redemptionId });
  }

  /**
   * docs/product.md §14.2: a manual key is the row `MANUAL_<key>` of the product (created with one activation's room,
   * its link updated when it exists), then given to the redemption. The upsert holds the key's row lock; the
   * activation and its assignment go together. The same key again (a corrected link) only becomes the
   * redemption's current key, without a second activation.
   */
  async assignManualKey(db: Db, productId: string, storedKey: string, downloadLink: string, redemptionId: string) {
    await this.rehashStale(db, productId, storedKey);
    const sealed = sealedKeyColumns(this.cipher, storedKey);
    const [key] = await db.query(
      `INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, is_manual, download_link, license_type,
                                 max_activations, current_activations)
       VALUES ($1, $2, $3, $4, $5, $6, 'single-user', 1, 0)
       ON CONFLICT ON CONSTRAINT uq_license_keys_product_hash
       DO UPDATE SET download_link = EXCLUDED.download_link, updated_at = now()
       RETURNING id`,
      [productId, sealed.ciphertext, sealed.hash, sealed.last, storedKey.startsWith(MANUAL_KEY_PREFIX), downloadLink],
    );
    const bumped = returnedRows(
      await db.query(
        `UPDATE license_keys
            SET current_activations = current_activations + 1,
                max_activations = greatest(max_activations, current_activations + 1),
                license_type = CASE WHEN greatest(max_activations, current_activations + 1) > 1 THEN 'volume' ELSE license_type END,
                updated_at = now()
          WHERE id = $1 AND NOT EXISTS (SELECT 1 FROM license_assignments WHERE license_key_id = $1 AND redemption_id = $2)
          RETURNING id`,
        [key.id, redemptionId],
      ),
    );
    if (bumped.length) {
      await db.getRepository(LicenseAssignment).insert({ licenseKeyId: key.id, redemptionId });
    } else {
      await db.query(
        `UPDATE license_assignments SET assigned_at = now() WHERE license_key_id = $1 AND redemption_id = $2`,
        [key.id, redemptionId],
      );
    }
    return { keyId: key.id as string };
  }

  /**
   * One manual key of a product for many redemptions (a volume licence): its row gets one activation, and
   * one activation's room, per redemption.
   */
  async assignVolumeKey(db: Db, productId: string, storedKey: string, downloadLink: string, redemptionIds: string[]) {
    const n = redemptionIds.length;
    await this.rehashStale(db, productId, storedKey);
    const sealed = sealedKeyColumns(this.cipher, storedKey);
    const [key] = await db.query(
      `INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, is_manual, download_link, license_type,
                                 max_activations, current_activations)
       VALUES ($1, $4, $5, $6, $7, $2, CASE WHEN $3::int > 1 THEN 'volume' ELSE 'single-user' END, $3, $3)
       ON CONFLICT ON CONSTRAINT uq_license_keys_product_hash
       DO UPDATE SET max_activations = license_keys.max_activations + $3,
                     current_activations = license_keys.current_activations + $3,
                     license_type = 'volume', download_link = EXCLUDED.download_link, updated_at = now()
       RETURNING id`,
      [
        productId,
        downloadLink,
        n,
        sealed.ciphertext,
        sealed.hash,
        sealed.last,
        storedKey.startsWith(MANUAL_KEY_PREFIX),
      ],
    );
    await db.query(`INSERT INTO license_assignments (license_key_id, redemption_id) SELECT $1, unnest($2::uuid[])`, [
      key.id,
      redemptionIds,
    ]);
  }

  // --- Keys at rest: the start-up sealing and the rotation (docs/architecture.md "Keys at rest") ---

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
