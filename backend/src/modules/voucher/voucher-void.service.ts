import { BadRequestException, HttpException, Injectable, NotFoundException } from '@nestjs/common';
import { Readable, type Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { RequestActor } from '../../common/utils/request-actor';
import { ProductService } from '../product/product.service';
import { copyCodesFromFile, drain, IncomingBody, isMultipart, receiveCodeFile, requireValidCodes } from './code-file';
import { CodeFilter } from './code-stream';
import type { UploadFile } from './voucher-code.repository';
import { RedeemedCode, RefundedAfterRedemption, VoucherVoidRepository } from './voucher-void.repository';
import { DomainEvents } from '../../events/domain-events.service';

export const VOID_MESSAGES = {
  nothingSent: 'Send the voucher codes to void as {"codes": [...]} or as a CSV or TXT file (form field "file").',
  productNotFound: 'Product not found.',
} as const;

export type { RefundedAfterRedemption } from './voucher-void.repository';

/** docs/product.md §19.3 answer of a void, plus what an upload's report also says (message, invalid lines). */
export interface VoidResult {
  message: string;
  voided: number;
  refundedAfterRedemption: RefundedAfterRedemption[];
  unknown: number;
  alreadyVoid: number;
  invalid: number;
  invalidSamples: string[];
  /** A void file is a batch (docs/product.md §20.1); a list sent as JSON is not (null). */
  batchId: string | null;
}

/** Refunded redemptions named in the audit row, at most (the counts are always complete). */
const AUDITED_REDEMPTION_IDS = 1000;

/**
 * Refunds (docs/product.md §19.3): the marketplace refunded vouchers, so their codes are voided. Available codes of the
 * product become void (`voided_at`: never redeemable, 410); codes already redeemed keep their redemption and its
 * key (a key the customer has seen never returns to the pool) and the redemption gets `refunded_at` (the event
 * `vouchers.refunded`, which the redemption module handles on the void's transaction); codes not of this product are
 * unknown; void codes count as already void. One transaction, set-based: a file of 100,000
 * codes is one COPY and three statements. Audited (`vouchers.void`) and followed by a `voucherUpdate` event.
 *
 * `voidCodes` is the one place a void happens: an outgoing `voucher.voided` notification (webhooks) belongs in it.
 */
@Injectable()
export class VoucherVoidService {
  constructor(
    private readonly voids: VoucherVoidRepository,
    private readonly products: ProductService,
    private readonly events: DomainEvents,
  ) {}

  /** `codes` from a JSON body, or (multipart request) the codes of the uploaded file. */
  async voidCodes(
    productId: string,
    body: IncomingBody,
    codes: string[] | undefined,
    ctx: RequestActor,
  ): Promise<VoidResult> {
    let filename: string | undefined;
    try {
      const product = await this.products.find(productId);
      if (!product) throw new NotFoundException(VOID_MESSAGES.productNotFound);
      const filter = new CodeFilter(isMultipart(body));
      let outcome: Awaited<ReturnType<VoucherVoidService['run']>>;
      if (isMultipart(body)) {
        outcome = await receiveCodeFile(body, (source, info) => {
          filename = info.filename;
          return this.run(productId, (copy) => copyCodesFromFile(source, info.kind, filter, copy, EMPTY_REPORT), {
            fileName: info.filename,
            adminUserId: ctx.adminUserId,
            lines: () => filter.counts,
          });
        });
      } else if (codes) {
        outcome = await this.run(
          productId,
          async (copy) => {
            await pipeline(Readable.from(codes.map((code) => [code])), filter, copy);
            requireValidCodes(filter.counts, EMPTY_REPORT);
          },
          null,
        );
      } else {
        throw new BadRequestException(VOID_MESSAGES.nothingSent);
      }
      const result: VoidResult = {
        message: summary(outcome),
        voided: outcome.voided,
        refundedAfterRedemption: outcome.refunded,
        unknown: outcome.unknown,
        alreadyVoid: outcome.alreadyVoid,
        invalid: filter.counts.invalid,
        invalidSamples: filter.counts.invalidSamples,
        batchId: outcome.batchId,
      };
      const refundedIds = result.refundedAfterRedemption.flatMap((r) => (r.redemptionId ? [r.redemptionId] : []));
      await this.events.publish('vouchers.void', {
        ...ctx,
        success: true,
        resource: 'product',
        resourceId: productId,
        details: {
          source: filename === undefined ? 'list' : 'file',
          filename,
          voided: result.voided,
          refundedAfterRedemption: result.refundedAfterRedemption.length,
          unknown: result.unknown,
          alreadyVoid: result.alreadyVoid,
          invalid: result.invalid,
          refundedRedemptionIds: refundedIds.slice(0, AUDITED_REDEMPTION_IDS),
          batchId: result.batchId,
        },
        // Counts always; the refunded codes named up to the audit's limit (a file may void 100,000 codes).
        changed:
          result.voided > 0 || refundedIds.length > 0
            ? {
                productId,
                productName: product.name,
                voided: result.voided,
                refundedAfterRedemption: result.refundedAfterRedemption.length,
                refundedCodes: result.refundedAfterRedemption.slice(0, AUDITED_REDEMPTION_IDS).map((r) => r.code),
                unknown: result.unknown,
                alreadyVoid: result.alreadyVoid,
                refundedRedemptions: refundedIds.length,
              }
            : undefined,
      });
      return result;
    } catch (err) {
      // Whatever happened, the request body must be consumed before answering, or the client sees a reset.
      await drain(body);
      await this.events.publish('vouchers.void', {
        ...ctx,
        success: false,
        resource: 'product',
        resourceId: productId,
        details: { filename, reason: err instanceof HttpException ? err.message : 'error' },
      });
      throw err;
    }
  }

  /** A void of codes a caller in this process names (a marketplace's refund event), as a JSON list would be. */
  voidList(productId: string, codes: string[], ctx: RequestActor): Promise<VoidResult> {
    const body: IncomingBody = { stream: Readable.from([]), contentType: 'application/json', complete: () => true };
    return this.voidCodes(productId, body, codes, ctx);
  }

  /**
   * The void itself (the voucher module's codes, through their repository); the redeemed codes it found are told to
   * the redemption module (`vouchers.refunded`, in-transaction), which marks their redemptions refunded on the void's
   * transaction: a mark that fails rolls the void back.
   */
  private run(productId: string, write: (copy: Writable) => Promise<void>, file: UploadFile | null) {
    const refund = (codes: RedeemedCode[]) =>
      this.events.publish('vouchers.refunded', {
        productId,
        codes: codes.map((c) => ({ voucherCodeId: c.id, code: c.code })),
      });
    return this.voids.voidIn(productId, write, refund, file);
  }
}

/** What a refused void (no valid code) answers beside the invalid counts. */
const EMPTY_REPORT = { voided: 0, refundedAfterRedemption: [], unknown: 0, alreadyVoid: 0 };

function summary(o: { voided: number; refunded: unknown[]; unknown: number; alreadyVoid: number }): string {
  const parts = [`${o.voided} voucher code${o.voided === 1 ? '' : 's'} voided`];
  if (o.refunded.length) {
    parts.push(`${o.refunded.length} already redeemed (marked refunded, the customer keeps the key)`);
  }
  if (o.alreadyVoid) parts.push(`${o.alreadyVoid} already void`);
  if (o.unknown) parts.push(`${o.unknown} unknown`);
  return `${parts.join(', ')}.`;
}
