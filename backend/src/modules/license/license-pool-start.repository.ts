import { Injectable } from '@nestjs/common';
import { DatabaseService } from '../../database/database.service';

/** A key the pool may give: the free-key condition of idx_license_keys_pool (its partial WHERE), word for word. */
export const FREE_KEY = `is_active AND current_activations < max_activations`;

/** The position before every key: a product without a start row is scanned from here. */
export const POOL_START_NONE = `'-infinity'::timestamptz, '00000000-0000-0000-0000-000000000000'::uuid`;

/**
 * A data-modifying CTE body for a writer that may have given keys room (added them, switched them on): `keys` is a
 * relation of the changed rows as they are now (`RETURNING *` of the writer's statement); each product's start moves
 * back to its first changed key with room, when that is before it. Being the same statement as the change, a start
 * never passes a key the statement made free; the job's compare-and-set (`advance`) leaves a start lowered meanwhile
 * alone.
 */
export function lowerPoolStartSql(keys: string): string {
  return `UPDATE license_pool_starts s SET key_created_at = m.created_at, key_id = m.id
      FROM (SELECT DISTINCT ON (product_id) product_id, created_at, id FROM ${keys}
             WHERE ${FREE_KEY} ORDER BY product_id, created_at, id) m
     WHERE s.product_id = m.product_id AND (s.key_created_at, s.key_id) > (m.created_at, m.id)`;
}

/**
 * Where each product's pool scan starts (`license_pool_starts`, docs/architecture.md "The pool's start"): the
 * redemption statement reads it and scans idx_license_keys_pool from there instead of walking the entries of every
 * key taken since the last VACUUM.
 */
@Injectable()
export class LicensePoolStartRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Moves every licence-managed product's start to its first key with room (a product with none keeps its start).
   * A product without a row gets one at the very start first. The move is a compare-and-set on the start this
   * statement's snapshot read: a writer that lowered the start after that snapshot (a key added or switched on,
   * which this snapshot cannot see) keeps its lower start, and the next run moves on from there. Returns the starts
   * moved.
   */
  async advance(): Promise<number> {
    const db = this.database.manager;
    await db.query(
      // NOT EXISTS first: ON CONFLICT alone would wait for a start row a writer holds.
      `INSERT INTO license_pool_starts (product_id, key_created_at, key_id)
       SELECT p.id, ${POOL_START_NONE} FROM products p
        WHERE p.is_license_managed AND NOT EXISTS (SELECT 1 FROM license_pool_starts s WHERE s.product_id = p.id)
       ON CONFLICT (product_id) DO NOTHING`,
    );
    const [{ n }]: Array<{ n: number }> = await db.query(
      `WITH f AS (
         SELECT s.product_id, s.key_created_at AS was_at, s.key_id AS was_id, k.created_at, k.id
           FROM license_pool_starts s
           CROSS JOIN LATERAL (SELECT created_at, id FROM license_keys
                                WHERE product_id = s.product_id AND ${FREE_KEY}
                                ORDER BY created_at, id LIMIT 1) k
          WHERE (k.created_at, k.id) <> (s.key_created_at, s.key_id)
       ), u AS (
         UPDATE license_pool_starts s SET key_created_at = f.created_at, key_id = f.id
           FROM f
          WHERE s.product_id = f.product_id AND s.key_created_at = f.was_at AND s.key_id = f.was_id
         RETURNING 1
       )
       SELECT count(*)::int AS n FROM u`,
    );
    return n;
  }
}
