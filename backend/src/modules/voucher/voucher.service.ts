import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DataSource } from 'typeorm';
import { cappedCount, estimateRows, walkedCount, exactCountLimit } from '../../database/list-counts';
import { likeContains } from '../../common/utils/sql';
import { RequestActor } from '../../common/utils/request-actor';
import { AuditService } from '../audit/audit.service';
import { RealtimeService } from '../realtime/realtime.service';
import { DeleteVoucherCodesDto, VoucherCodeListQuery } from './dto/voucher.dto';

export interface VoucherCodeView {
  id: string;
  code: string;
  isRedeemed: boolean;
  createdAt: Date;
  redeemedAt: Date | null;
  redemption: {
    id: string;
    redeemedAt: Date;
    emailStatus: string;
    customer: { id: string; firstName: string; lastName: string; email: string };
  } | null;
}

export interface VoucherCodePage {
  codes: VoucherCodeView[];
  totalCount: number;
  hasMore: boolean;
  /** False when `totalCount` is PostgreSQL's estimate (more than LIST_EXACT_COUNT_LIMIT matches). */
  totalCountExact: boolean;
}

/**
 * A search first walks this many of the list's newest codes (the more when PostgreSQL expects more than
 * SEARCH_BROAD matches); with too few matches there, the trigram index answers.
 */
const SEARCH_WALK_ROWS = { narrow: 1000, broad: 5000 };
const SEARCH_BROAD = 2000;

interface CodeRow {
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

@Injectable()
export class VoucherService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly audit: AuditService,
    private readonly realtime: RealtimeService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * One page of a product's codes with their redemption and customer. All/unredeemed: newest first
   * (insertion order); redeemed: most recently redeemed first. Each ordering has its own index (migration
   * 1763700000010). The page's ids come from the index first (a deep offset skips index entries, not table
   * rows); one id more than the page tells `hasMore` exactly. `totalCount` is exact up to LIST_EXACT_COUNT_LIMIT, an
   * estimate beyond (`totalCountExact: false`). A search first walks the newest SEARCH_WALK_ROWS codes of the
   * list in order and keeps the matches; with too few there, the trigram index answers.
   */
  async list(productId: string, query: VoucherCodeListQuery): Promise<VoucherCodePage> {
    await this.requireProduct(productId);
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
    const estimate = await estimateRows(this.dataSource, `SELECT 1 FROM voucher_codes v WHERE ${filter}`, params);

    const walkRows = estimate > SEARCH_BROAD ? SEARCH_WALK_ROWS.broad : SEARCH_WALK_ROWS.narrow;
    const windowSql = (rows: number) => `SELECT v.id, v.code, v.seq, v.redeemed_at FROM voucher_codes v WHERE ${base}
                        ORDER BY ${order} LIMIT ${rows}`;
    const walkSql = (rows: number) => `SELECT v.id FROM (${windowSql(rows)}) v WHERE v.code ILIKE $${n}`;
    let ids: string[] | undefined;
    let walked = false;
    if (query.search && query.offset + query.limit < walkRows) {
      const found: Array<{ id: string }> = await this.dataSource.query(
        `${walkSql(walkRows)} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit + 1, query.offset],
      );
      if (found.length > query.limit) {
        ids = found.map((r) => r.id);
        walked = true;
      }
    }
    if (!ids) {
      const rows: Array<{ id: string }> = await this.dataSource.query(
        `SELECT v.id FROM voucher_codes v WHERE ${filter} ORDER BY ${order} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...params, query.limit + 1, query.offset],
      );
      ids = rows.map((r) => r.id);
    }
    const hasMore = ids.length > query.limit;
    ids = ids.slice(0, query.limit);
    const [rows, counted] = await Promise.all([
      ids.length
        ? (this.dataSource.query(
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
        ? estimateRows(this.dataSource, `SELECT 1 FROM voucher_codes v WHERE ${base}`, params.slice(0, -1)).then(
            (listEstimate) =>
              walkedCount(
                this.dataSource,
                windowSql(SEARCH_WALK_ROWS.narrow),
                walkSql(SEARCH_WALK_ROWS.narrow),
                params.slice(0, -1),
                params.slice(-1),
                SEARCH_WALK_ROWS.narrow,
                listEstimate,
                exactCountLimit(query.search, this.config.listExactCountLimit),
              ),
          )
        : cappedCount(this.dataSource, `SELECT 1 FROM voucher_codes v WHERE ${filter}`, params, estimate, exactCountLimit(query.search, this.config.listExactCountLimit)),
    ]);
    const seen = query.offset + rows.length + (hasMore ? 1 : 0);
    return {
      codes: rows.map(toView),
      totalCount: counted.exact ? counted.count : Math.max(counted.count, seen),
      hasMore,
      totalCountExact: counted.exact,
    };
  }

  /** Only unredeemed codes can be deleted; a redeemed one belongs to a customer's history. */
  async deleteOne(id: string, ctx: RequestActor): Promise<{ message: string }> {
    const [deleted] = await this.dataSource.query(
      `DELETE FROM voucher_codes v USING products p
        WHERE v.id = $1 AND NOT v.is_redeemed AND p.id = v.product_id
        RETURNING v.code, v.product_id, p.name`,
      [id],
    );
    if (!deleted.length) {
      const [existing] = await this.dataSource.query(`SELECT is_redeemed FROM voucher_codes WHERE id = $1`, [id]);
      const error = existing
        ? new ConflictException('Redeemed voucher codes cannot be deleted.')
        : new NotFoundException('Voucher code not found.');
      await this.audit.record({
        ...ctx,
        action: 'vouchers.delete',
        success: false,
        resource: 'voucher_code',
        resourceId: id,
        details: { reason: error.message },
      });
      throw error;
    }
    const row = deleted[0];
    await this.audit.record({
      ...ctx,
      action: 'vouchers.delete',
      success: true,
      resource: 'voucher_code',
      resourceId: id,
      details: { code: row.code, productId: row.product_id },
    });
    this.realtime.emit('voucherUpdate', `Voucher code ${row.code} deleted from ${row.name}`);
    return { message: 'Voucher code deleted successfully.' };
  }

  /**
   * `selected`: the given unredeemed codes of this product; `all-unredeemed`: every unredeemed code of it.
   * Redeemed codes are never deleted: the condition is part of the DELETE, so a code redeemed meanwhile stays.
   */
  async deleteMany(
    productId: string,
    dto: DeleteVoucherCodesDto,
    ctx: RequestActor,
  ): Promise<{ message: string; deletedCount: number; skippedCount: number }> {
    const product = await this.requireProduct(productId);
    let deletedCount: number;
    let skippedCount = 0;
    if (dto.deleteType === 'selected') {
      const ids = [...new Set(dto.voucherCodeIds ?? [])];
      const [, affected] = await this.dataSource.query(
        `DELETE FROM voucher_codes WHERE product_id = $1 AND id = ANY($2::uuid[]) AND NOT is_redeemed`,
        [productId, ids],
      );
      deletedCount = affected;
      skippedCount = ids.length - deletedCount;
    } else {
      const [, affected] = await this.dataSource.query(
        `DELETE FROM voucher_codes WHERE product_id = $1 AND NOT is_redeemed`,
        [productId],
      );
      deletedCount = affected;
    }
    await this.audit.record({
      ...ctx,
      action: 'vouchers.bulk-delete',
      success: true,
      resource: 'product',
      resourceId: productId,
      details: { deleteType: dto.deleteType, requested: dto.voucherCodeIds?.length, deletedCount, skippedCount },
    });
    if (deletedCount > 0) {
      this.realtime.emit('voucherUpdate', `${deletedCount} voucher code(s) deleted from ${product.name}`);
    }
    const skipped = skippedCount ? ` ${skippedCount} redeemed or unknown code(s) were kept.` : '';
    return {
      message: `${deletedCount} voucher code${deletedCount === 1 ? '' : 's'} deleted.${skipped}`,
      deletedCount,
      skippedCount,
    };
  }

  private async requireProduct(id: string): Promise<{ id: string; name: string }> {
    const [product] = await this.dataSource.query(`SELECT id, name FROM products WHERE id = $1`, [id]);
    if (!product) throw new NotFoundException('Product not found.');
    return product;
  }
}

function toView(row: CodeRow): VoucherCodeView {
  return {
    id: row.id,
    code: row.code,
    isRedeemed: row.is_redeemed,
    createdAt: row.created_at,
    redeemedAt: row.redeemed_at,
    redemption: row.redemption_id
      ? {
          id: row.redemption_id,
          redeemedAt: row.redemption_at as Date,
          emailStatus: row.email_status as string,
          customer: {
            id: row.customer_id as string,
            firstName: row.first_name as string,
            lastName: row.last_name as string,
            email: row.email as string,
          },
        }
      : null,
  };
}
