import { Injectable } from '@nestjs/common';
import { randomUUID } from 'crypto';
import { from as copyFrom } from 'pg-copy-streams';
import type { Writable } from 'stream';
import { DatabaseService } from '../../database/database.service';
import { ListDeclaration, readListPage } from '../../database/list/list-page';
import { productCountsDeltaSql } from '../../common/utils/counters-sql';
import { likeContains, likePrefix } from '../../common/utils/sql';
import {
  availableCodesSql,
  CODE_STATUS_SQL,
  codeStatusSql,
  CodeStatus,
  listAvailableCte,
  redeemedCodesSql,
  unlistAvailableCte,
} from './code-status.sql';
import { UploadBatchRepository } from './upload-batch.repository';

export type { CodeStatus } from './code-status.sql';

/**
 * The CTEs of a statement that deleted available codes (`rows`: its RETURNING with `product_id, batch_id, seq`): their
 * product's and batch's `available` go down (issue 26: every writer counts itself, common/utils/counters-sql.ts), and
 * they leave the list of available codes.
 */
const AVAILABLE_CODES_GONE = (rows: string) => `, counted AS (
  ${productCountsDeltaSql(
    `SELECT product_id, coalesce(batch_id, product_id) AS batch_id, -1 AS available FROM ${rows}`,
    ['available'],
  )}) ${unlistAvailableCte(rows)}`;

/** How many codes starting with a search term are read to tell whether the list holds any (`searchPath`). */
const START_PROBE = 1000;

/** The first START_PROBE codes starting with the pattern `$like` (a b-tree range of uq_voucher_codes_code). */
const startingCodes = (like: string) =>
  `SELECT c.id, c.code FROM voucher_codes c WHERE c.code LIKE ${like} ORDER BY c.code USING ~<~ LIMIT ${START_PROBE}`;

export interface CodePageQuery {
  status?: CodeStatus;
  search?: string;
  offset: number;
  limit: number;
}

export interface CodeRow {
  id: string;
  code: string;
  is_redeemed: boolean;
  status: CodeStatus;
  created_at: Date;
  redeemed_at: Date | null;
  voided_at: Date | null;
  redemption_id: string | null;
  redemption_at: Date | null;
  refunded_at: Date | null;
  /** The customer erased their personal data (docs/product.md §21.3): names and e-mail are empty. */
  erased_at: Date | null;
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
 * A product's codes, declared to the list module (docs/architecture.md, "Lists"): all and void newest first (insertion
 * order, idx_voucher_codes_product_seq / _void_seq); available newest first and redeemed most recently redeemed first,
 * both read off the code's row (`availableCodesSql`: available_codes' primary key; `redeemedCodesSql`: the
 * redemptions' and the released codes' indexes; with a search, joined to the code it tests). The shown rows join their
 * redemption and customer (the name is the redemption's own, as given with it: docs/product.md §11.6); a walked code
 * is tested on its own row.
 */
function codeList(status: CodeStatus | undefined, searched: boolean): ListDeclaration {
  const redeemed = status === 'redeemed';
  return {
    table:
      status === 'available' ? availableCodesSql(searched) : redeemed ? redeemedCodesSql(searched) : 'voucher_codes',
    alias: 'v',
    order: redeemed
      ? [
          { expr: 'v.redeemed_at', desc: true },
          { expr: 'v.id', desc: true },
        ]
      : [{ expr: 'v.seq', desc: true }],
    view: {
      select: `SELECT v.id, v.code, v.is_redeemed, ${codeStatusSql('api')} AS status, v.created_at, v.redeemed_at,
                      v.voided_at, v.seq, r.id AS redemption_id, r.redeemed_at AS redemption_at, r.refunded_at,
                      r.erased_at, r.email_status,
                      c.id AS customer_id, r.first_name, r.last_name, coalesce(c.email, '') AS email
                 FROM voucher_codes v
                 LEFT JOIN redemptions r ON r.voucher_code_id = v.id
                 LEFT JOIN customers c ON c.id = r.customer_id`,
    },
    walk: {
      columns: redeemed
        ? 'v.id, v.code, v.redeemed_at'
        : status === 'available'
          ? 'v.id, v.code, v.seq'
          : 'v.id, v.code, v.seq, v.redeemed_at',
    },
  };
}

/**
 * The one owner of `voucher_codes`. Lists and the upload are hot paths over millions of rows: their SQL is
 * written by hand against the indexes of migration 1763700000010 (named on the entity).
 */
@Injectable()
export class VoucherCodeRepository {
  constructor(
    private readonly database: DatabaseService,
    private readonly batches: UploadBatchRepository,
  ) {}

  /**
   * One page of a product's codes with their redemption and customer, read as every list is (`readListPage`): ids
   * from the list's index first, then the shown rows; `hasMore` exact; the count exact up to `exactLimit`, an
   * estimate beyond. A search is narrow or broad by the list module's rule: a narrow one collects its matches
   * through the trigram index (idx_voucher_codes_code_trgm) with its exact total, a broad one walks the newest codes.
   */
  async page(productId: string, query: CodePageQuery, exactLimit: number): Promise<CodePage> {
    const params: unknown[] = [productId];
    const where = ['v.product_id = $1'];
    // The available and the redeemed list's rows are of their status by construction (`codeList`).
    if (query.status === 'void') where.push(CODE_STATUS_SQL.void);
    const list = codeList(query.status, !!query.search);
    const base = where.join(' AND ');
    // Codes are stored upper-case (every write upper-cases them: uploads, and the redeem form's input is upper-cased
    // too), so the upper-cased term with a case-sensitive LIKE finds what ILIKE would, at a third of the cost per row
    // a walk tests (ILIKE folds the case of every code it reads).
    const term = query.search?.toUpperCase();
    const found = term ? await this.searchPath(list, base, params, term) : undefined;
    const test = `v.code LIKE $${params.length + 1}`;
    const { rows, hasNextPage, counted } = await readListPage<CodeRow>(
      this.database.manager,
      list,
      {
        params,
        base,
        search:
          term && found
            ? {
                params: [found.starts ? likePrefix(term) : likeContains(term)],
                indexed: found.few ? `v.id IN (SELECT id FROM (${startingCodes(`$${params.length + 1}`)}) s)` : test,
                joined: test,
                narrow: found.whole || found.few,
                sparse: found.elsewhere,
              }
            : undefined,
      },
      { limit: query.limit, offset: query.offset, exactLimit },
    );
    return { rows, hasMore: hasNextPage, counted };
  }

  /**
   * How a search term finds codes in the list filtered by `base` (docs/product.md §3.12): codes starting with it when
   * any does (a b-tree range of uq_voucher_codes_code, `text_pattern_ops`), else codes containing it (the trigram
   * index, which leads with the product). Their matches are few whatever PostgreSQL estimates when the term is a code
   * of the list (`whole`), and likely few when codes start with it but none of the list's (`elsewhere`: PostgreSQL's
   * estimate of a pattern ignores the product, so `PROMO24-`, the start of a tenth of the Windows codes, looks as
   * broad on the Mac product's codes, where no code holds it; the list's newest codes are still walked first).
   * Asked of the first START_PROBE codes of the range only (in the index's order), so that a start many codes of other
   * products or tabs share costs a bounded read, not a scan of every code: past them, the codes containing the term
   * are listed, the codes starting with it among them. The list's codes start with it and fewer than that many codes
   * do (`few`): the list's matches are among them, so few whatever PostgreSQL expects (its estimate of `RC33333%`
   * over ten million codes is 50,000 where 111 codes hold it; the redeemed list read in its order for them took 30 s).
   */
  private async searchPath(list: ListDeclaration, base: string, params: unknown[], term: string) {
    const n = params.length;
    const member = `FROM starting s JOIN ${list.table} ${list.alias} ON ${list.alias}.id = s.id WHERE ${base}`;
    const [row]: Array<{ starts: boolean; whole: boolean; starting: number }> = await this.database.manager.query(
      `WITH starting AS (${startingCodes(`$${n + 2}`)})
       SELECT EXISTS (SELECT 1 ${member} AND s.code = $${n + 1}) AS whole, EXISTS (SELECT 1 ${member}) AS starts,
              (SELECT count(*)::int FROM starting) AS starting`,
      [...params, term, likePrefix(term)],
    );
    const { starts, whole, starting } = row;
    return { starts, whole, elsewhere: starting > 0 && !starts, few: starts && starting < START_PROBE };
  }

  /**
   * Deletes one available code (the condition is part of the DELETE): a redeemed code belongs to a customer's
   * history, and a void code must stay so that the refunded code can never be uploaded and sold again.
   */
  async deleteUnredeemed(id: string): Promise<{ code: string; productId: string } | undefined> {
    const [row]: Array<{ code: string; product_id: string }> = await this.database.manager.query(
      `WITH d AS (DELETE FROM voucher_codes v WHERE v.id = $1 AND ${CODE_STATUS_SQL.available}
                  RETURNING v.code, v.product_id, v.batch_id, v.seq)
       ${AVAILABLE_CODES_GONE('d')}
       SELECT code, product_id FROM d`,
      [id],
    );
    return row && { code: row.code, productId: row.product_id };
  }

  /** The product a code belongs to (undefined: no such code), by uq_voucher_codes_code. */
  async productOfCode(code: string): Promise<string | undefined> {
    const [row]: Array<{ product_id: string }> = await this.database.manager.query(
      `SELECT product_id FROM voucher_codes WHERE code = $1`,
      [code],
    );
    return row?.product_id;
  }

  /** The code's status (undefined: no such code). */
  async statusOf(id: string): Promise<CodeStatus | undefined> {
    const [row]: Array<{ status: CodeStatus }> = await this.database.manager.query(
      `SELECT ${codeStatusSql('api')} AS status FROM voucher_codes v WHERE v.id = $1`,
      [id],
    );
    return row?.status;
  }

  /**
   * Deletes a product's available codes, only the given ones when `ids` is set; answers how many went. All of them are
   * found through the list of available codes (available_codes' primary key), not by reading every code.
   */
  async deleteUnredeemedOfProduct(productId: string, ids?: string[]): Promise<number> {
    const which = ids
      ? `v.id = ANY($2::uuid[])`
      : `v.id IN (SELECT a.voucher_code_id FROM available_codes a WHERE a.product_id = $1)`;
    const [{ n }]: Array<{ n: number }> = await this.database.manager.query(
      `WITH d AS (DELETE FROM voucher_codes v WHERE ${which} AND v.product_id = $1 AND ${CODE_STATUS_SQL.available}
                  RETURNING v.product_id, v.batch_id, v.seq)
       ${AVAILABLE_CODES_GONE('d')}
       SELECT count(*)::int AS n FROM d`,
      ids ? [productId, ids] : [productId],
    );
    return n;
  }

  /**
   * Streams codes into a product in one transaction: `write` pipes them into `COPY … FROM STDIN` of a temporary
   * table, then one `INSERT … SELECT … ON CONFLICT DO NOTHING` adds those not taken yet (by any product; repeats
   * inside the file count once), each with the batch's id (one more constant column, docs/product.md §20.1), and the batch row
   * is written with the load's figures (`file` tells the file's valid and invalid lines once it is read). Answers how
   * many were inserted and the batch. The INSERT adds what it inserted to the batch's `available` counter in the same
   * statement (one grouped upsert, whatever the number of codes). When `write` throws, nothing is written, no batch either.
   */
  async copyIn(
    productId: string,
    write: (copy: Writable) => Promise<void>,
    file: UploadFile,
  ): Promise<{ inserted: number; batchId: string }> {
    const batchId = file.batchId ?? randomUUID();
    return this.database.withClient(
      async (client) => {
        // Compared bytewise, as the codes' unique index (text_pattern_ops) compares them: the sort below is its order.
        await client.query(`CREATE TEMP TABLE upload_codes (code text COLLATE "C" NOT NULL) ON COMMIT DROP`);
        await write(client.query(copyFrom(`COPY upload_codes (code) FROM STDIN`)));
        const { rows } = await client.query(
          `WITH ins AS (
             INSERT INTO voucher_codes (code, product_id, batch_id)
             SELECT DISTINCT code, $1::uuid, $2::uuid FROM upload_codes
             ORDER BY code -- sorted, the unique index on code is written in order rather than at random
             ON CONFLICT (code) DO NOTHING
             RETURNING id, product_id, seq),
           counted AS (
             ${productCountsDeltaSql(`SELECT $1::uuid AS product_id, $2::uuid AS batch_id, count(*) AS available FROM ins`, ['available'])})
           ${listAvailableCte('ins')}
           SELECT count(*)::int AS inserted, min(seq)::text AS first_seq, max(seq)::text AS last_seq FROM ins`,
          [productId, batchId],
        );
        const [{ inserted, first_seq: firstSeq, last_seq: lastSeq }] = rows;
        const lines = file.lines();
        await this.batches.insert({
          id: batchId,
          productId,
          kind: 'upload',
          fileName: file.fileName,
          adminUserId: file.adminUserId,
          inserted,
          duplicates: lines.valid - inserted,
          invalid: lines.invalid,
          firstSeq,
          lastSeq,
        });
        return { inserted: inserted as number, batchId };
      },
      // Held for as long as the client takes to send the file: one of the DB_BULK_CONNECTIONS.
      { transaction: true, bulk: true },
    );
  }

  /**
   * Merges the trigram index's pending list (filled by an upload, migration 1763820000100) into the index in one
   * pass; answers the pages merged. Concurrent writers go on meanwhile; until it ends a search reads the list too.
   */
  async mergeSearchIndex(): Promise<number> {
    const [{ pages }] = await this.database.manager.query(
      `SELECT gin_clean_pending_list('idx_voucher_codes_code_trgm'::regclass)::int AS pages`,
    );
    return pages;
  }
}

/** The file a load reads, made a batch (docs/product.md §20.1): its name, who sent it, its lines once read. */
export interface UploadFile {
  fileName: string;
  adminUserId: string | null;
  /** The file's well-formed and malformed lines, read once the file has been. */
  lines: () => { valid: number; invalid: number };
  /**
   * A batch of this product that later loads add to (a marketplace connection's batch of the day): the load's
   * figures are added to its row. Unset: a new batch.
   */
  batchId?: string;
}
