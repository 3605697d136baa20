import { Injectable } from '@nestjs/common';
import { DataCipher } from '../../config/data-cipher';
import { DatabaseService } from '../../database/database.service';
import { keyCountsDeltaSql, keyRowStateSql } from '../../common/utils/counters-sql';
import { MANUAL_KEY_PREFIX } from './entities/license-key.entity';
import { sealedKeyColumns } from './license.repository';

/** Rows per transaction of the start-up sealing and of a rotation. */
const SEAL_BATCH = 500;

/** `license_keys` seen as sealed data: the start-up sealing of plain rows and `rotate-data-key`. */
@Injectable()
export class LicenseKeySealingRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly cipher: DataCipher,
  ) {}

  /**
   * Seals one batch of plain rows (written before keys were sealed) and empties their clear key; 0 when none is
   * left. Each batch is one transaction over row-locked rows (SKIP LOCKED: two instances take disjoint batches,
   * and a row is sealed exactly once), so an interrupted run loses nothing and the next start goes on.
   */
  async sealPlainBatch(limit = SEAL_BATCH): Promise<number> {
    return this.database.transaction(async (db) => {
      const rows: Array<{ id: string; license_key: string }> = await db.query(
        `SELECT id, license_key FROM license_keys WHERE license_key IS NOT NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`,
        [limit],
      );
      if (!rows.length) return 0;
      const sealed = rows.map((r) => sealedKeyColumns(this.cipher, r.license_key));
      // Sealing decides `is_manual` from the key's prefix, which may take a plain row out of the pool summary: `o`
      // (the rows as this transaction locked them) and `u` count the change in the same statement (issue 26).
      await db.query(
        `WITH o AS MATERIALIZED (SELECT * FROM license_keys WHERE id = ANY($1::uuid[])),
         u AS (
           UPDATE license_keys k
              SET key_ciphertext = s.ciphertext, key_hash = s.hash, key_last = s.last,
                  is_manual = s.stored LIKE '${MANUAL_KEY_PREFIX}%', license_key = NULL
             FROM unnest($1::uuid[], $2::bytea[], $3::bytea[], $4::text[], $5::text[]) AS s(id, ciphertext, hash, last, stored)
            WHERE k.id = s.id
           RETURNING k.*
         ), kc AS (${keyCountsDeltaSql(
           `SELECT u.product_id, ${keyRowStateSql('u')} FROM u WHERE NOT u.is_manual
            UNION ALL SELECT o.product_id, ${keyRowStateSql('o', -1)} FROM o JOIN u ON u.id = o.id WHERE NOT o.is_manual`,
         )})
         SELECT 1`,
        [
          rows.map((r) => r.id),
          sealed.map((x) => x.ciphertext),
          sealed.map((x) => x.hash),
          sealed.map((x) => x.last),
          rows.map((r) => r.license_key),
        ],
      );
      return rows.length;
    });
  }

  /**
   * `rotate-data-key`'s closing check: licence keys not under DATA_KEY (sealed under another key, or still in clear).
   * One sequential read of the table, like the rotation itself.
   */
  async countNotUnder(keyId: Buffer): Promise<number> {
    const [{ n }]: Array<{ n: number }> = await this.database.manager.query(
      `SELECT count(*)::int AS n FROM license_keys
        WHERE license_key IS NOT NULL OR substring(key_ciphertext FROM 2 FOR 4) <> $1`,
      [keyId],
    );
    return n;
  }

  /**
   * `rotate-data-key`: the next batch of rows after `afterId` (in id order) re-sealed and re-hashed under the
   * current DATA_KEY when they are still under DATA_KEY_PREVIOUS. Rows already rotated are left alone, so a run
   * that was interrupted simply starts again. The UPDATE only replaces the ciphertext it read: a row re-sealed
   * meanwhile by `rehashStale` is not overwritten.
   */
  async rotateBatch(afterId: string | null, limit = SEAL_BATCH): Promise<{ lastId: string | null; rotated: number }> {
    const rows: Array<{ id: string; key_ciphertext: Buffer }> = await this.database.manager.query(
      `SELECT id, key_ciphertext FROM license_keys
        WHERE key_ciphertext IS NOT NULL AND ($1::uuid IS NULL OR id > $1) ORDER BY id LIMIT $2`,
      [afterId, limit],
    );
    if (!rows.length) return { lastId: null, rotated: 0 };
    const stale = rows.filter((r) => this.cipher.isRotatable(r.key_ciphertext));
    let rotated = 0;
    if (stale.length) {
      const keys = stale.map((r) => this.cipher.open(r.key_ciphertext));
      const result = await this.database.manager.query(
        `UPDATE license_keys k SET key_ciphertext = s.ciphertext, key_hash = s.hash
           FROM unnest($1::uuid[], $2::bytea[], $3::bytea[], $4::bytea[]) AS s(id, old, ciphertext, hash)
          WHERE k.id = s.id AND k.key_ciphertext = s.old`,
        [
          stale.map((r) => r.id),
          stale.map((r) => r.key_ciphertext),
          keys.map((k) => this.cipher.seal(k)),
          keys.map((k) => this.cipher.hash(k)),
        ],
      );
      rotated = result[1] as number;
    }
    return { lastId: rows[rows.length - 1].id, rotated };
  }
}
