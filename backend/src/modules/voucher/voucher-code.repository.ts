import { Injectable } from '@nestjs/common';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'stream';
import { DatabaseService } from '../../database/database.service';
import { cappedCount, estimateRows, exactCountLimit, walkedCount } from '../../database/list-counts';
import { likeContains } from '../../common/utils/sql';

export interface CodeCounts {
  unredeemed: number;
  redeemed: number;
}

export interface CodePageQuery {
  redeemedOnly?: 'true' | 'false';
  search?: string;
  offset: number;
  limit: number;
}

export interface CodeRow {
  id: string;
  code: string;
  is_redeemed: boolean;
  created_at: Date;
  redeemed_at: Date | null;
  redemption_id: string | null;
  redemption_at: Date | null;
  email_status: string | null;
  customer_id: string | null;
  first_name: string | null;
  last_name: string | null;
  email: string | null;
}

export interface CodePage {
  rows: CodeRow[];
  hasMore: boolean;
  counted: { count: number; exact: boolean };
}

/**
 * A search first walks this many of the list's newest codes (the more when PostgreSQL expects more than
 * SEARCH_BROAD matches); with too few matches there, the trigram index answers.
 */
const SEARCH_WALK_ROWS = { narrow: 1000, broad: 5000 };
const SEARCH_BROAD = 2000;

/**
 * The one owner of `voucher_codes`. Lists and the upload are hot paths over millions of rows: their SQL is
 * written by hand against the indexes of migration 1763700000010 (named on the entity).
 */
@Injectable()
export class VoucherCodeRepository {
  constructor(private readonly database: DatabaseService) {}

  /**
   * Unredeemed and redeemed codes per product (of one product when given): two grouped index-only passes,
   * over idx_voucher_codes_unredeemed_seq and idx_voucher_codes_redeemed (both partial).
   */
  async countsByProduct(productId: string | null = null): Promise<Map<string, CodeCounts>> {
    const rows: Array<{ product_id: string; unredeemed: number; redeemed: number }> = await this.database.manager.query(
      `SELECT coalesce(u.product_id, r.product_id) AS product_id,
              coalesce(u.n, 0)::int AS unredeemed, coalesce(r.n, 0)::int AS redeemed
         FROM (SELECT product_id, count(*) AS n FROM voucher_codes
                WHERE NOT is_redeemed AND ($1::uuid IS NULL OR product_id = $1) GROUP BY product_id) u
         FULL JOIN (SELECT product_id, count(*) AS n FROM voucher_codes
                     WHERE is_redeemed AND ($1::uuid IS NULL OR product_id = $1) GROUP BY product_id) r
           ON r.product_id = u.product_id`,
      [productId],
    );
    return new Map(rows.map((r) => [r.product_id, { unredeemed: r.unredeemed, redeemed: r.redeemed }]));
  }

  /** Unredeemed codes per product (idx_voucher_codes_unredeemed_seq, index-only). */
  async unredeemedByProduct(): Promise<Map<string, number>> {
    const rows: Array<{ product_id: string; n: number }> = await this.database.manager.query(
      `SELECT product_id, count(*)::int AS n FROM voucher_codes WHERE NOT is_redeemed GROUP BY product_id`,
    );
    return new Map(rows.map((r) => [r.product_id, r.n]));
  }

  /**
   * One page of a product's codes with their redemption and customer. All/unredeemed: newest first
   * (insertion order, idx_voucher_codes_product_seq / _unredeemed_seq); redeemed: most recently redeemed first
   * (idx_voucher_codes_redeemed). The page's ids come from the index first (a deep offset skips index entries,
   * not table rows); one id more than the page tells `hasMore` exactly. The count is exact up to
   * `exactLimit`, an estimate beyond. A search first walks the newest SEARCH_WALK_ROWS codes of the list in
   * order and keeps the matches; with too few there, the trigram index (idx_voucher_codes_code_trgm) answers.
   */
  async page(productId: string, query: CodePageQuery, exactLimit: number): Promise<CodePage> {
    const db = this.database.manager;
    const params: unknown[] = [productId];
    const where = ['v.product_id = $1'];
    if (query.redeemedOnly === 'true') where.push('v.is_redeemed');
    if (query.redeemedOnly === 'false') where.push('NOT v.is_redeemed');
    const base = where.join(' AND ');
    if (query.search) {
      params.push(likeContains(query.search));
      where.push(`v.code ILIKE $${params.length}`);
    }
    const order = query.redeemedOnly === 'true' ? 'v.redeemed_at DESC, v.seq DESC' : 'v.seq DESC';
    const filter = where.join(' AND ');
    const n = params.length;
    const estimate = await estimateRows(db, `SELECT 1 FROM voucher_codes v WHERE ${filter}`, params);

    const walkRows = estimate > SEARCH_BROAD ? SEARCH_WALK_ROWS.broad : SEARCH_WALK_ROWS.narrow;
    const windowSql = (rows: number) => `SELECT v.id, v.code, v.seq, v.redeemed_at FROM voucher_codes v WHERE ${base}
                        ORDER BY ${order} LIMIT ${rows}`;
    const walkSql = (rows: number) => `SELECT v.id FROM (${windowSql(rows)}) v WHERE v.code ILIKE $${n}`;
    let ids: string[] | undefined;
    let walked = false;
    if (query.search && query.offset + query.limit < walkRows) {
      const found: Array<{ id: string }> = await db.query(
        `${walkSql(walkRows)} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit + 1, query.offset],
      );
      if (found.length > query.limit) {
        ids = found.map((r) => r.id);
        walked = true;
      }
    }
    if (!ids) {
      const rows: Array<{ id: string }> = await db.query(
        `SELECT v.id FROM voucher_codes v WHERE ${filter} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit + 1, query.offset],
      );
      ids = rows.map((r) => r.id);
    }
    const hasMore = ids.length > query.limit;
    ids = ids.slice(0, query.limit);
    const cap = exactCountLimit(query.search, exactLimit);
    const [rows, counted] = await Promise.all([
      ids.length
        ? (db.query(
            // The shown rows only, by primary key; redemption and customer joined for these few.
            `SELECT v.id, v.code, v.is_redeemed, v.created_at, v.redeemed_at, v.seq,
                    r.id AS redemption_id, r.redeemed_at AS redemption_at, r.email_status,
                    c.id AS customer_id, c.first_name, c.last_name, c.email
               FROM voucher_codes v
               LEFT JOIN redemptions r ON r.voucher_code_id = v.id
               LEFT JOIN customers c ON c.id = r.customer_id
              WHERE v.id = ANY($1::uuid[])
              ORDER BY ${order}`,
            [ids],
          ) as Promise<CodeRow[]>)
        : Promise.resolve([] as CodeRow[]),
      // A walked search is counted within the walk: counting it through the index would collect every match.
      walked
        ? estimateRows(db, `SELECT 1 FROM voucher_codes v WHERE ${base}`, params.slice(0, -1)).then((listEstimate) =>
            walkedCount(
              db,
              windowSql(SEARCH_WALK_ROWS.narrow),
              walkSql(SEARCH_WALK_ROWS.narrow),
              params.slice(0, -1),
              params.slice(-1),
              SEARCH_WALK_ROWS.narrow,
              listEstimate,
              cap,
            ),
          )
        : cappedCount(db, `SELECT 1 FROM voucher_codes v WHERE ${filter}`, params, estimate, cap),
    ]);
    return { rows, hasMore, counted };
  }

  /** Deletes one code unless it is redeemed (the condition is part of the DELETE); what was deleted, if anything. */
  async deleteUnredeemed(id: string): Promise<{ code: string; productId: string } | undefined> {
    const [deleted] = await this.database.manager.query(
      `DELETE FROM voucher_codes WHERE id = $1 AND NOT is_redeemed RETURNING code, product_id`,
      [id],
    );
    const row = (deleted as Array<{ code: string; product_id: string }>)[0];
    return row && { code: row.code, productId: row.product_id };
  }

  /** Whether the code exists and is redeemed (undefined: no such code). */
  async isRedeemed(id: string): Promise<boolean | undefined> {
    const [row]: Array<{ is_redeemed: boolean }> = await this.database.manager.query(
      `SELECT is_redeemed FROM voucher_codes WHERE id = $1`,
      [id],
    );
    return row?.is_redeemed;
  }

  /** Deletes a product's unredeemed codes, only the given ones when `ids` is set; answers how many went. */
  async deleteUnredeemedOfProduct(productId: string, ids?: string[]): Promise<number> {
    const [, affected] = ids
      ? await this.database.manager.query(
          `DELETE FROM voucher_codes WHERE product_id = $1 AND id = ANY($2::uuid[]) AND NOT is_redeemed`,
          [productId, ids],
        )
      : await this.database.manager.query(`DELETE FROM voucher_codes WHERE product_id = $1 AND NOT is_redeemed`, [
          productId,
        ]);
    return affected;
  }

  /**
   * Streams codes into a product in one transaction: `write` pipes them into `COPY … FROM STDIN` of a temporary
   * table, then one `INSERT … SELECT … ON CONFLICT DO NOTHING` adds those not taken yet (by any product; repeats
   * inside the file count once). Answers how many were inserted. When `write` throws, nothing is written.
   */
  async copyIn(productId: string, write: (copy: Writable) => Promise<void>): Promise<number> {
    return this.database.withClient(
      async (client) => {
        await client.query(`CREATE TEMP TABLE upload_codes (code text NOT NULL) ON COMMIT DROP`);
        await write(client.query(copyFrom(`COPY upload_codes (code) FROM STDIN`)));
        const { rows } = await client.query(
          `WITH ins AS (
             INSERT INTO voucher_codes (code, product_id)
             SELECT DISTINCT code, $1::uuid FROM upload_codes
             ORDER BY code -- sorted, the unique index on code is written in order rather than at random
             ON CONFLICT (code) DO NOTHING
             RETURNING 1)
           SELECT count(*)::int AS inserted FROM ins`,
          [productId],
        );
        return rows[0].inserted as number;
      },
      // Held for as long as the client takes to send the file: one of the DB_BULK_CONNECTIONS.
      { transaction: true, bulk: true },
    );
  }
}
