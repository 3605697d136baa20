import { DataSource } from 'typeorm';
import {
  codeStateSql,
  dayCountsDeltaSql,
  keyCountsDeltaSql,
  keyRowStateSql,
  localDaySql,
  productCountsDeltaSql,
  redemptionCountsCtes,
} from '../../backend/src/common/utils/counters-sql';
import { lowerPoolStartSql } from '../../backend/src/modules/license/license-pool-start.repository';
import { CODE_STATUS_SQL, listAvailableCte } from '../../backend/src/modules/voucher/code-status.sql';

/*
 * Rows a test writes straight to the counted tables count themselves, as every writer of the application does
 * (issue 26: no counter triggers; backend/src/common/utils/counters-sql.ts): each helper wraps the test's INSERT
 * (without RETURNING) into one statement that adds its rows to the counters and answers them (`RETURNING *`).
 */

/**
 * `insert` into voucher_codes, counted in the codes' product and batch (no batch_id: the "before batches" one), its
 * available codes listed in `available_codes` as the upload lists them (docs/architecture.md "A code's state").
 */
export function countedCodes(insert: string): string {
  return `WITH ins AS (${insert} RETURNING *),
  counted AS (${productCountsDeltaSql(
    `SELECT product_id, coalesce(batch_id, product_id) AS batch_id, ${codeStateSql('ins')} FROM ins`,
    ['available', 'redeemed', 'void'],
  )}) ${listAvailableCte(`(SELECT * FROM ins v WHERE ${CODE_STATUS_SQL.available})`)}
  SELECT * FROM ins`;
}

/** `insert` into redemptions, counted (product, batch of its code, exported, local day). */
export function countedRedemptions(insert: string): string {
  return `WITH ins AS (${insert} RETURNING *) ${redemptionCountsCtes('ins', 1)} SELECT * FROM ins`;
}

/**
 * `insert` into license_keys, counted in the pool summary when not MANUAL_; a key with room moves its product's pool
 * start back to it if need be, as the application's key writers do.
 */
export function countedKeys(insert: string): string {
  return `WITH ins AS (${insert} RETURNING *),
  kc AS (${keyCountsDeltaSql(`SELECT ins.product_id, ${keyRowStateSql('ins')} FROM ins WHERE NOT ins.is_manual`)}),
  ps AS (${lowerPoolStartSql('ins')})
  SELECT * FROM ins`;
}

/**
 * `UPDATE license_keys k SET <set> WHERE <where>` (expressions on `k`), counted: the rows are locked and read before
 * the change, as the application's key writers do; a key left with room moves its product's pool start back to it.
 */
export function countedKeyUpdate(set: string, where: string): string {
  return `WITH o AS MATERIALIZED (SELECT * FROM license_keys k WHERE ${where} ORDER BY k.id FOR NO KEY UPDATE),
  u AS (UPDATE license_keys k SET ${set} FROM o WHERE k.id = o.id RETURNING k.*),
  kc AS (${keyCountsDeltaSql(
    `SELECT u.product_id, ${keyRowStateSql('u')} FROM u WHERE NOT u.is_manual
     UNION ALL SELECT o.product_id, ${keyRowStateSql('o', -1)} FROM o WHERE NOT o.is_manual`,
  )}),
  ps AS (${lowerPoolStartSql('u')})
  SELECT * FROM u`;
}

/**
 * Moves redemptions to another time (`UPDATE redemptions r SET redeemed_at = <at> WHERE <where>`, expressions on `r`;
 * `also` more SET assignments), moving them between the day counters. Nothing in the application moves a redemption.
 */
export async function moveRedemptions(
  db: DataSource,
  at: string,
  where: string,
  params: unknown[] = [],
  also = '',
): Promise<void> {
  await db.query(
    `WITH o AS MATERIALIZED (SELECT r.id, r.product_id, r.redeemed_at FROM redemptions r WHERE ${where} ORDER BY r.id FOR NO KEY UPDATE),
     u AS (UPDATE redemptions r SET redeemed_at = ${at}${also ? `, ${also}` : ''} FROM o WHERE r.id = o.id
           RETURNING r.product_id, r.redeemed_at),
     dc AS (${dayCountsDeltaSql(
       `SELECT ${localDaySql('u.redeemed_at')} AS day, u.product_id, 1 AS redemptions FROM u
        UNION ALL SELECT ${localDaySql('o.redeemed_at')}, o.product_id, -1 FROM o`,
     )})
     SELECT 1`,
    params,
  );
}
