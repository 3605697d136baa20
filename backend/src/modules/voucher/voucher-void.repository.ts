import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'stream';
import { productCountsDeltaSql } from '../../common/utils/counters-sql';
import { DatabaseService, SqlClient } from '../../database/database.service';
import { CODE_STATUS_SQL, unlistAvailableCte } from './code-status.sql';
import { UploadBatchRepository } from './upload-batch.repository';
import type { UploadFile } from './voucher-code.repository';

/** A code that had been redeemed before its refund: it stays redeemed, its redemption is marked, the key stays. */
export interface RefundedAfterRedemption {
  code: string;
  /** Null when the redemption was deleted since (the code stays redeemed). */
  redemptionId: string | null;
  redeemedAt: Date | null;
  refundedAt: Date | null;
}

/** A redeemed code the void named: its row's id and the code. */
export interface RedeemedCode {
  id: string;
  code: string;
}

/** The void's statements on `voucher_codes` (the table `VoucherCodeRepository` owns otherwise), one transaction. */
@Injectable()
export class VoucherVoidRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly batches: UploadBatchRepository,
  ) {}

  /**
   * Voids the named codes of a product (refunds, docs/product.md §19.3) in one transaction, set-based whatever the
   * number of codes: `write` pipes them into `COPY … FROM STDIN` of a temporary table; one UPDATE voids the available
   * ones (and moves them from `available` to `void` in their batches' counters, `counted`) (locking them in id order,
   * so overlapping voids cannot deadlock); a second statement, with a fresh snapshot that also sees a redemption which
   * won the race for a code, classifies the rest; `refund` then has the redeemed ones' redemptions marked (the
   * redemption module's table, through its listener of `vouchers.refunded`) on the same client and transaction, and
   * their marks are read back. Codes of other products count as unknown. When `write` or `refund` throws, nothing is
   * written. A void file (`file`, docs/product.md §20.1) is a batch: the codes it voided carry its id
   * (`void_batch_id`, set by the same UPDATE), as do the redeemed codes it refunded (not yet named by another void
   * file), and its row holds the figures.
   */
  async voidIn(
    productId: string,
    write: (copy: Writable) => Promise<void>,
    refund: (redeemed: RedeemedCode[]) => Promise<void>,
    file: UploadFile | null,
  ): Promise<{
    distinct: number;
    voided: number;
    alreadyVoid: number;
    unknown: number;
    refunded: RefundedAfterRedemption[];
    batchId: string | null;
  }> {
    const batchId = file ? randomUUID() : null;
    return this.database.withClient(
      async (client) => {
        await client.query(`CREATE TEMP TABLE void_codes (code text NOT NULL) ON COMMIT DROP`);
        await write(client.query(copyFrom(`COPY void_codes (code) FROM STDIN`)));
        // Row counts for the planner: a join by uq_voucher_codes_code, not a scan of every code.
        await client.query(`ANALYZE void_codes`);
        const { rows: changed } = await client.query(
          `WITH input AS (SELECT DISTINCT code FROM void_codes),
                target AS (
                  SELECT v.id FROM voucher_codes v JOIN input i ON i.code = v.code
                   WHERE v.product_id = $1 AND ${CODE_STATUS_SQL.available}
                   ORDER BY v.id FOR UPDATE OF v),
                voided AS (
                  UPDATE voucher_codes v SET voided_at = now(), void_batch_id = $2 FROM target t
                   WHERE v.id = t.id AND ${CODE_STATUS_SQL.available}
                  RETURNING v.product_id, v.batch_id, v.seq),
                counted AS (
                  ${productCountsDeltaSql(
                    `SELECT product_id, coalesce(batch_id, product_id) AS batch_id, -1 AS available, 1 AS void
                       FROM voided`,
                    ['available', 'void'],
                  )}) ${unlistAvailableCte('voided')}
           SELECT (SELECT count(*) FROM input)::int AS distinct_codes, (SELECT count(*) FROM voided)::int AS voided`,
          [productId, batchId],
        );
        const { rows: state } = await client.query(
          `SELECT count(*)::int AS found, count(*) FILTER (WHERE ${CODE_STATUS_SQL.void})::int AS void_now,
                  coalesce(json_agg(json_build_object('id', v.id, 'code', v.code) ORDER BY v.code)
                             FILTER (WHERE ${CODE_STATUS_SQL.redeemed}), '[]') AS redeemed
             FROM (SELECT DISTINCT code FROM void_codes) i
             JOIN voucher_codes v ON v.code = i.code AND v.product_id = $1`,
          [productId],
        );
        const [{ distinct_codes: distinct, voided }] = changed;
        const [{ found, void_now: voidNow, redeemed }] = state as [
          { found: number; void_now: number; redeemed: RedeemedCode[] },
        ];
        // A redeemed code refunded before (another void, another event) counts as already void: nothing of it is
        // done again, so its refund is told once (the webhook, the marketplace's report, the figures).
        const fresh = await notRefundedYet(client, redeemed);
        if (fresh.length) await refund(fresh);
        const refunded = await refundedRedemptions(client, fresh);
        const outcome = {
          distinct,
          voided,
          alreadyVoid: voidNow - voided + redeemed.length - fresh.length,
          unknown: distinct - found,
          refunded,
          batchId,
        };
        if (file && batchId) {
          if (fresh.length) {
            // In id order, as the void locked its codes: overlapping void files cannot deadlock.
            await client.query(
              `UPDATE voucher_codes v SET void_batch_id = $1
                 FROM (SELECT id FROM voucher_codes WHERE id = ANY($2::uuid[]) AND void_batch_id IS NULL
                        ORDER BY id FOR UPDATE) t
                WHERE v.id = t.id`,
              [batchId, fresh.map((r) => r.id)],
            );
          }
          await this.batches.insert({
            id: batchId,
            productId,
            kind: 'void',
            fileName: file.fileName,
            adminUserId: file.adminUserId,
            inserted: voided,
            duplicates: outcome.alreadyVoid,
            invalid: file.lines().invalid,
            refunded: refunded.length,
            unknown: outcome.unknown,
          });
        }
        return outcome;
      },
      // Held for as long as the client takes to send the file: one of the DB_BULK_CONNECTIONS.
      { transaction: true, bulk: true },
    );
  }
}

/**
 * The redeemed codes whose redemption is not refunded yet (or was deleted: nothing to mark). Their redemptions are
 * locked in id order, as the refund's own marks lock them: of two voids of one code, the second waits for the
 * first and then reads its mark, so exactly one refunds it.
 */
async function notRefundedYet(client: SqlClient, redeemed: RedeemedCode[]): Promise<RedeemedCode[]> {
  if (!redeemed.length) return [];
  // Every one locked, refunded or not: a lock that waited reads the row as the other void committed it.
  const { rows } = await client.query<{ voucher_code_id: string; refunded: boolean }>(
    `SELECT voucher_code_id, refunded_at IS NOT NULL AS refunded FROM redemptions
      WHERE voucher_code_id = ANY($1::uuid[]) ORDER BY id FOR NO KEY UPDATE`,
    [redeemed.map((r) => r.id)],
  );
  const done = new Set(rows.filter((r) => r.refunded).map((r) => r.voucher_code_id));
  return redeemed.filter((r) => !done.has(r.id));
}

/**
 * The redemptions of the refunded codes as the refund left them, read on the void's client (its transaction sees
 * the marks), in the codes' order; a code whose redemption was deleted has none.
 */
async function refundedRedemptions(client: SqlClient, redeemed: RedeemedCode[]): Promise<RefundedAfterRedemption[]> {
  if (!redeemed.length) return [];
  const { rows } = await client.query<{ voucher_code_id: string; id: string; redeemed_at: Date; refunded_at: Date }>(
    `SELECT voucher_code_id, id, redeemed_at, refunded_at FROM redemptions WHERE voucher_code_id = ANY($1::uuid[])`,
    [redeemed.map((r) => r.id)],
  );
  const byCode = new Map(rows.map((r) => [r.voucher_code_id, r]));
  return redeemed.map((r) => {
    const m = byCode.get(r.id);
    return {
      code: r.code,
      redemptionId: m?.id ?? null,
      redeemedAt: m?.redeemed_at ?? null,
      refundedAt: m?.refunded_at ?? null,
    };
  });
}
