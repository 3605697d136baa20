import { pgError } from '../../common/utils/sql';
import { HttpException, Injectable, Logger, NotFoundException, BadRequestException } from '@nestjs/common';
import { Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { RequestActor } from '../../common/utils/request-actor';
import { ProductService } from '../product/product.service';
import {
  CODE_FILE_MESSAGES,
  CodeFileInfo,
  copyCodesFromFile,
  drain,
  IncomingBody,
  isMultipart,
  receiveCodeFile,
  requireValidCodes,
} from './code-file';
import { CodeCounts, CodeFilter } from './code-stream';
import { UploadBatchRepository } from './upload-batch.repository';
import { VoucherCodeRepository } from './voucher-code.repository';
import { DomainEvents } from '../../events/domain-events.service';

export { MAX_UPLOAD_BYTES } from './code-file';

export const UPLOAD_MESSAGES = {
  ...CODE_FILE_MESSAGES,
  productNotFound: 'Product not found.',
  // docs/product.md §20.6: the reasons a failed upload's batch shows.
  cutOff: 'The upload was cut off before the whole file arrived. Nothing was added: upload the file again.',
  noSpace:
    'The database ran out of storage space while adding the codes. Nothing was added: try again once an ' +
    'administrator has freed space.',
  serverError: 'The upload failed on the server. Nothing was added: upload the file again.',
} as const;

/** PostgreSQL's `disk_full` (53100): the database could not write for want of space. */
const DISK_FULL = '53100';

export interface UploadResult {
  message: string;
  inserted: number;
  duplicates: number;
  invalid: number;
  invalidSamples: string[];
  /** The upload's batch (docs/product.md §20.1): `GET /api/products/{id}/batches`, `GET /api/export/batch/{batchId}`. */
  batchId: string;
}

/**
 * Voucher upload (docs/product.md §15.1), streamed end to end: multipart (busboy) → lines (csv-parse or a line
 * splitter) → validated, upper-cased codes → `COPY` into a temporary table → one
 * `INSERT … SELECT … ON CONFLICT DO NOTHING`. Memory stays flat whatever the file size, and the whole
 * load is one transaction: a refused file (too large, unreadable, nothing valid) writes nothing.
 */
@Injectable()
export class VoucherUploadService {
  private readonly logger = new Logger(VoucherUploadService.name);

  constructor(
    private readonly codes: VoucherCodeRepository,
    private readonly batches: UploadBatchRepository,
    private readonly products: ProductService,
    private readonly events: DomainEvents,
  ) {}

  async upload(productId: string, body: IncomingBody, ctx: RequestActor): Promise<UploadResult> {
    let filename: string | undefined;
    try {
      const product = await this.products.find(productId);
      if (!product) throw new NotFoundException(UPLOAD_MESSAGES.productNotFound);
      if (!isMultipart(body)) {
        throw new BadRequestException(UPLOAD_MESSAGES.noFile);
      }
      const result = await receiveCodeFile(body, (source, info) => {
        filename = info.filename;
        return this.load(productId, source, info, ctx.adminUserId);
      });
      const duplicates = result.counts.valid - result.inserted;
      const response: UploadResult = {
        message: summary(result.inserted, duplicates, result.counts.invalid),
        inserted: result.inserted,
        duplicates,
        invalid: result.counts.invalid,
        invalidSamples: result.counts.invalidSamples,
        batchId: result.batchId,
      };
      await this.events.publish('vouchers.upload', {
        ...ctx,
        success: true,
        resource: 'product',
        resourceId: productId,
        details: {
          filename,
          inserted: response.inserted,
          duplicates,
          invalid: response.invalid,
          batchId: response.batchId,
        },
        productName: product.name,
        inserted: response.inserted,
      });
      if (response.inserted > 0) {
        // The new codes' search entries wait in the trigram index's pending list: merged in one pass, after the
        // answer (not awaited; should it fail or the process end, vacuum merges them).
        this.codes
          .mergeSearchIndex()
          .catch((err: Error) => this.logger.warn(`Merging the code search index failed: ${err.message}`));
      }
      return response;
    } catch (caught) {
      // Whatever happened, the request body must be consumed before answering, or the client sees a reset.
      await drain(body);
      const err =
        pgError(caught).code === DISK_FULL ? new HttpException({ message: UPLOAD_MESSAGES.noSpace }, 507) : caught;
      // A file whose load began and failed on the server's side stays listed, as failed (docs/product.md §20.6).
      const failure = filename === undefined ? undefined : this.failure(err, body);
      if (failure) await this.recordFailed(productId, filename!, failure, ctx);
      await this.events.publish('vouchers.upload', {
        ...ctx,
        success: false,
        resource: 'product',
        resourceId: productId,
        details: { filename, reason: failure ?? (err instanceof HttpException ? err.message : 'error') },
      });
      throw err;
    }
  }

  /** The reason a failed batch shows, or none when the file itself was refused (its uploader read why at once). */
  private failure(err: unknown, body: IncomingBody): string | undefined {
    // Too large: refused, whether or not the client stayed to send the rest.
    if (err instanceof HttpException && err.getStatus() === 413) return undefined;
    if (!body.complete()) return UPLOAD_MESSAGES.cutOff;
    if (err instanceof HttpException && err.getStatus() === 507) return UPLOAD_MESSAGES.noSpace;
    if (err instanceof HttpException && err.getStatus() < 500) return undefined;
    return UPLOAD_MESSAGES.serverError;
  }

  private async recordFailed(productId: string, fileName: string, failure: string, ctx: RequestActor) {
    try {
      await this.batches.insertFailed({ productId, fileName, adminUserId: ctx.adminUserId, failure });
    } catch (err) {
      this.logger.warn(`Recording the failed upload of ${productId} failed: ${(err as Error).message}`);
    }
  }

  /**
   * Codes a caller in this process names (a marketplace's `voucher.created`): the same load as a file's, into `file`'s
   * batch (a connection's batch of the day), audited as an upload. Invalid codes are refused before anything is
   * written (400, nothing changes). Answers the codes added and those that existed already.
   */
  async addListed(
    productId: string,
    codes: string[],
    file: { fileName: string; batchId: string },
    ctx: RequestActor,
  ): Promise<{ inserted: number; duplicates: number }> {
    const product = await this.products.find(productId);
    if (!product) throw new NotFoundException(UPLOAD_MESSAGES.productNotFound);
    const filter = new CodeFilter();
    const { inserted, batchId } = await this.codes.copyIn(
      productId,
      async (copy) => {
        await pipeline(Readable.from(codes.map((code) => [code])), filter, copy);
        requireValidCodes(filter.counts, { inserted: 0, duplicates: 0 });
      },
      { ...file, adminUserId: null, lines: () => filter.counts },
    );
    const duplicates = filter.counts.valid - inserted;
    await this.events.publish('vouchers.upload', {
      ...ctx,
      success: true,
      resource: 'product',
      resourceId: productId,
      details: { filename: file.fileName, inserted, duplicates, invalid: 0, batchId },
      productName: product.name,
      inserted,
    });
    return { inserted, duplicates };
  }

  private async load(
    productId: string,
    source: Readable,
    info: CodeFileInfo,
    adminUserId: string | null,
  ): Promise<{ counts: CodeCounts; inserted: number; batchId: string }> {
    const codes = new CodeFilter();
    try {
      // Existing codes (of any product) and repeats inside the file are skipped, never changed.
      const { inserted, batchId } = await this.codes.copyIn(
        productId,
        (copy) => copyCodesFromFile(source, info.kind, codes, copy, { inserted: 0, duplicates: 0 }),
        { fileName: info.filename, adminUserId, lines: () => codes.counts },
      );
      return { counts: codes.counts, inserted, batchId };
    } catch (err) {
      // The product was deleted while its codes were loading.
      if ((err as { code?: string }).code === '23503') throw new NotFoundException(UPLOAD_MESSAGES.productNotFound);
      throw err;
    }
  }
}

function summary(inserted: number, duplicates: number, invalid: number): string {
  const parts = [`${inserted} voucher code${inserted === 1 ? '' : 's'} uploaded`];
  const skipped: string[] = [];
  if (duplicates) skipped.push(`${duplicates} duplicate${duplicates === 1 ? '' : 's'}`);
  if (invalid) skipped.push(`${invalid} invalid line${invalid === 1 ? '' : 's'}`);
  if (skipped.length) parts.push(`skipped ${skipped.join(' and ')}`);
  return `${parts.join(', ')}.`;
}
