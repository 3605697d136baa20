import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService, Db } from '../../database/database.service';
import { queryRows } from '../../database/query-rows';
import { keyCountsDeltaSql, keyRowStateSql } from '../../common/utils/counters-sql';
import { LicenseAssignment } from './entities/license-assignment.entity';
import { keyLastChars, MANUAL_KEY_PREFIX } from './entities/license-key.entity';
import { FREE_KEY } from './license-pool-start.repository';

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

/**
 * While a rotation runs (DATA_KEY_PREVIOUS set), a row not yet rotated carries its hash under the previous key,
 * so the unique constraint would not see a new copy of it: the row with the same key is rotated first (no counted
 * figure changes).
 */
export async function rehashStaleKey(db: Db, cipher: DataCipher, productId: string, storedKey: string): Promise<void> {
  const previous = cipher.previousHash(storedKey);
  if (!previous) return;
  await db.query(`UPDATE license_keys SET key_hash = $3, key_ciphertext = $4 WHERE product_id = $1 AND key_hash = $2`, [
    productId,
    previous,
    cipher.hash(storedKey),
    cipher.seal(storedKey),
  ]);
}

/**
 * A change of key rows `o` (the old rows, row-locked by the statement or already by its transaction) into `u` (the
 * rows the UPDATE returned, `RETURNING k.*`): the pool summary's delta (MANUAL_ keys left out), as a CTE body.
 */
const KEY_CHANGE = keyCountsDeltaSql(
  `SELECT u.product_id, ${keyRowStateSql('u')} FROM u WHERE NOT u.is_manual
   UNION ALL SELECT o.product_id, ${keyRowStateSql('o', -1)} FROM o JOIN u ON u.id = o.id WHERE NOT o.is_manual`,
);

/**
 * The licence pool as redemptions and their assignments use it: the free keys, a pool key, a manual or volume key
 * given to redemptions (docs/product.md §14). The key admin (list, add, (de)activate, delete) is
 * LicenseKeyAdminRepository; both are the only code that touches `license_keys` and `license_assignments`. Keys are
 * sealed here on the way in and opened here on the way out (docs/product.md §18.1): SQL never sees a clear key. Every
 * write that changes a pool key's figures adds the change to `license_key_counts` in the same statement (issue 26).
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
   * The oldest free key of a product, row-locked: unlike the redemption statement's SKIP LOCKED this waits for
   * a key a concurrent redemption holds (idx_license_keys_pool, walked in order).
   */
  async lockFreeKey(productId: string): Promise<{ id: string } | undefined> {
    const db = this.database.current;
    const [key] = await db.query(
      `SELECT id FROM license_keys WHERE product_id = $1 AND ${FREE_KEY} ORDER BY created_at, id LIMIT 1 FOR UPDATE`,
      [productId],
    );
    return key;
  }

  async hasFreeKey(productId: string): Promise<boolean> {
    const db = this.database.current;
    const [{ free }] = await db.query(
      `SELECT EXISTS (SELECT 1 FROM license_keys WHERE product_id = $1 AND ${FREE_KEY}) AS free`,
      [productId],
    );
    return free;
  }

  /**
   * One activation more on a key locked by `lockFreeKey`, counted (its state before is the same row with one
   * activation less: the transaction holds its lock), and its assignment to the redemption.
   */
  async assignPoolKey(keyId: string, redemptionId: string): Promise<void> {
    const db = this.database.current;
    await db.query(
      `WITH u AS (
         UPDATE license_keys SET current_activations = current_activations + 1, updated_at = now() WHERE id = $1
         RETURNING *
       ), o AS (SELECT u.id, u.product_id, u.is_manual, u.is_active, u.current_activations - 1 AS current_activations,
                       u.max_activations FROM u)
       , kc AS (${KEY_CHANGE})
       SELECT 1`,
      [keyId],
    );
    await db.getRepository(LicenseAssignment).insert({ licenseKeyId: keyId, redemptionId });
  }

  /**
   * docs/product.md §14.2: a manual key is the row `MANUAL_<key>` of the product (created with one activation's room,
   * its link updated when it exists), then given to the redemption. The upsert holds the key's row lock; the
   * activation and its assignment go together. The same key again (a corrected link) only becomes the
   * redemption's current key, without a second activation. A MANUAL_ row counts nowhere; should the key be a pool
   * key's (one added as `MANUAL_…`), the activation moves the summary (`o`: the row as the upsert left it, locked).
   */
  async assignManualKey(productId: string, storedKey: string, downloadLink: string, redemptionId: string) {
    const db = this.database.current;
    await rehashStaleKey(db, this.cipher, productId, storedKey);
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
    const [{ bumped }] = await db.query(
      `WITH o AS MATERIALIZED (SELECT * FROM license_keys WHERE id = $1 FOR NO KEY UPDATE),
       u AS (
         UPDATE license_keys k
            SET current_activations = k.current_activations + 1,
                max_activations = greatest(k.max_activations, k.current_activations + 1),
                license_type = CASE WHEN greatest(k.max_activations, k.current_activations + 1) > 1 THEN 'volume' ELSE k.license_type END,
                updated_at = now()
           FROM o
          WHERE k.id = o.id AND NOT EXISTS (SELECT 1 FROM license_assignments WHERE license_key_id = $1 AND redemption_id = $2)
          RETURNING k.*
       ), kc AS (${KEY_CHANGE})
       SELECT count(*)::int AS bumped FROM u`,
      [key.id, redemptionId],
    );
    if (bumped) {
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
   * one activation's room, per redemption. An existing row is changed first (`o`/`u`, counted when it is a pool key),
   * else the row is inserted (counted when it is not MANUAL_); an insert that lost a race to a concurrent one of the
   * same key changes that row instead.
   */
  async assignVolumeKey(productId: string, storedKey: string, downloadLink: string, redemptionIds: string[]) {
    const db = this.database.current;
    const n = redemptionIds.length;
    await rehashStaleKey(db, this.cipher, productId, storedKey);
    const sealed = sealedKeyColumns(this.cipher, storedKey);
    let keyId: string | undefined;
    while (!keyId) {
      [{ id: keyId }] = await db.query(
        `WITH o AS MATERIALIZED (
           SELECT * FROM license_keys WHERE product_id = $1 AND key_hash = $3 FOR NO KEY UPDATE
         ), u AS (
           UPDATE license_keys k
              SET max_activations = k.max_activations + $2, current_activations = k.current_activations + $2,
                  license_type = 'volume', download_link = $4, updated_at = now()
             FROM o WHERE k.id = o.id
           RETURNING k.*
         ), kc AS (${KEY_CHANGE})
         SELECT (SELECT id FROM u) AS id`,
        [productId, n, sealed.hash, downloadLink],
      );
      if (keyId) break;
      [{ id: keyId }] = await db.query(
        `WITH k AS (
           INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, is_manual, download_link, license_type,
                                     max_activations, current_activations)
           VALUES ($1, $4, $5, $6, $7, $2, CASE WHEN $3::int > 1 THEN 'volume' ELSE 'single-user' END, $3, $3)
           ON CONFLICT ON CONSTRAINT uq_license_keys_product_hash DO NOTHING
           RETURNING *
         ), kc AS (${keyCountsDeltaSql(`SELECT k.product_id, ${keyRowStateSql('k')} FROM k WHERE NOT k.is_manual`)})
         SELECT (SELECT id FROM k) AS id`,
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
    }
    await db.query(`INSERT INTO license_assignments (license_key_id, redemption_id) SELECT $1, unnest($2::uuid[])`, [
      keyId,
      redemptionIds,
    ]);
    return { keyId };
  }
}
