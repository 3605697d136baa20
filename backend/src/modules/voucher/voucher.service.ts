import { ConflictException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { pagination, shownTotal } from '../../database/list/list-rules';
import { RequestActor } from '../../common/utils/request-actor';
import { ProductService } from '../product/product.service';
import { DeleteVoucherCodesDto, VoucherCodeListQuery } from './dto/voucher.dto';
import { CodeRow, CodeStatus, VoucherCodeRepository } from './voucher-code.repository';
import { DomainEvents } from '../../events/domain-events.service';

export interface VoucherCodeView {
  id: string;
  code: string;
  isRedeemed: boolean;
  /** available, redeemed or void (refunded before redemption). */
  status: CodeStatus;
  createdAt: Date;
  redeemedAt: Date | null;
  voidedAt: Date | null;
  redemption: {
    id: string;
    redeemedAt: Date;
    /** Set when the code was refunded after redemption (the customer keeps the key). */
    refundedAt: Date | null;
    /** The customer erased their personal data (docs/product.md §21.3): names and e-mail are empty. */
    erasedAt: Date | null;
    emailStatus: string;
    customer: { id: string; firstName: string; lastName: string; email: string };
  } | null;
}

export interface VoucherCodePage {
  codes: VoucherCodeView[];
  /** The admin lists' one pagination contract (docs/architecture.md, "Lists"). */
  pagination: ReturnType<typeof pagination>;
  /** The same as `pagination.totalCount`, kept for API clients of the offset form. */
  totalCount: number;
  /** The same as `pagination.hasNextPage`. */
  hasMore: boolean;
  /** False when `totalCount` is PostgreSQL's estimate (more than LIST_EXACT_COUNT_LIMIT matches). */
  totalCountExact: boolean;
}

@Injectable()
export class VoucherService {
  constructor(
    private readonly codes: VoucherCodeRepository,
    private readonly products: ProductService,
    private readonly events: DomainEvents,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** One page of a product's codes with their redemption and customer (see VoucherCodeRepository.page). */
  async list(productId: string, query: VoucherCodeListQuery): Promise<VoucherCodePage> {
    await this.products.require(productId);
    const status =
      query.status ??
      (query.redeemedOnly === 'true' ? 'redeemed' : query.redeemedOnly === 'false' ? 'available' : undefined);
    // `page` (the admin lists' contract) or, for older clients, `offset`.
    const offset = query.page ? (query.page - 1) * query.limit : query.offset;
    const { rows, hasMore, counted } = await this.codes.page(
      productId,
      { status, search: query.search, offset, limit: query.limit },
      this.config.listExactCountLimit,
    );
    const seen = offset + rows.length + (hasMore ? 1 : 0);
    return {
      codes: rows.map(toView),
      pagination: pagination(Math.floor(offset / query.limit) + 1, query.limit, rows.length, hasMore, counted),
      totalCount: shownTotal(counted, seen),
      hasMore,
      totalCountExact: counted.exact,
    };
  }

  /**
   * Only available codes can be deleted: a redeemed one belongs to a customer's history, and a void one must stay
   * so the refunded code can never be uploaded and sold again.
   */
  async deleteOne(id: string, ctx: RequestActor): Promise<{ message: string }> {
    const deleted = await this.codes.deleteUnredeemed(id);
    if (!deleted) {
      const status = await this.codes.statusOf(id);
      const error =
        status === 'redeemed'
          ? new ConflictException('Redeemed voucher codes cannot be deleted.')
          : status === 'void'
            ? new ConflictException('Void voucher codes cannot be deleted.')
            : new NotFoundException('Voucher code not found.');
      await this.events.publish('vouchers.delete', {
        ...ctx,
        success: false,
        resource: 'voucher_code',
        resourceId: id,
        details: { reason: error.message },
      });
      throw error;
    }
    const product = await this.products.find(deleted.productId);
    await this.events.publish('vouchers.delete', {
      ...ctx,
      success: true,
      resource: 'voucher_code',
      resourceId: id,
      details: { code: deleted.code, productId: deleted.productId },
      voucherCode: deleted.code,
      productName: product?.name,
    });
    return { message: 'Voucher code deleted successfully.' };
  }

  /**
   * `selected`: the given available codes of this product; `all-unredeemed`: every available code of it.
   * Redeemed and void codes are never deleted: the condition is part of the DELETE, so a code redeemed meanwhile stays.
   */
  async deleteMany(
    productId: string,
    dto: DeleteVoucherCodesDto,
    ctx: RequestActor,
  ): Promise<{ message: string; deletedCount: number; skippedCount: number }> {
    const product = await this.products.require(productId);
    let deletedCount: number;
    let skippedCount = 0;
    if (dto.deleteType === 'selected') {
      const ids = [...new Set(dto.voucherCodeIds ?? [])];
      deletedCount = await this.codes.deleteUnredeemedOfProduct(productId, ids);
      skippedCount = ids.length - deletedCount;
    } else {
      deletedCount = await this.codes.deleteUnredeemedOfProduct(productId);
    }
    await this.events.publish('vouchers.bulk-delete', {
      ...ctx,
      success: true,
      resource: 'product',
      resourceId: productId,
      details: { deleteType: dto.deleteType, requested: dto.voucherCodeIds?.length, deletedCount, skippedCount },
      productName: product.name,
      deletedCount,
    });
    const skipped = skippedCount ? ` ${skippedCount} redeemed, void or unknown code(s) were kept.` : '';
    return {
      message: `${deletedCount} voucher code${deletedCount === 1 ? '' : 's'} deleted.${skipped}`,
      deletedCount,
      skippedCount,
    };
  }
}

function toView(row: CodeRow): VoucherCodeView {
  return {
    id: row.id,
    code: row.code,
    isRedeemed: row.is_redeemed,
    status: row.status,
    createdAt: row.created_at,
    redeemedAt: row.redeemed_at,
    voidedAt: row.voided_at,
    redemption: row.redemption_id
      ? {
          id: row.redemption_id,
          redeemedAt: row.redemption_at as Date,
          refundedAt: row.refunded_at,
          erasedAt: row.erased_at,
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
