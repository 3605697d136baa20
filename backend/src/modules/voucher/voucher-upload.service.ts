import {
  BadRequestException,
  HttpException,
  Injectable,
  NotFoundException,
  PayloadTooLargeException,
} from '@nestjs/common';
import busboy from 'busboy';
import { CsvError, parse } from 'csv-parse';
import type { Request } from 'express';
import { extname } from 'path';
import { PassThrough, Readable } from 'stream';
import { pipeline } from 'stream/promises';
import { RequestActor } from '../../common/utils/request-actor';
import { AuditService } from '../audit/audit.service';
import { ProductService } from '../product/product.service';
import { RealtimeService } from '../realtime/realtime.service';
import { CodeCounts, CodeFilter, LineRecords, TextOnly, UnreadableFileError } from './code-stream';
import { VoucherCodeRepository } from './voucher-code.repository';

/** DECISIONS §9: CSV or TXT up to 50 MB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const ACCEPTED_EXTENSIONS = ['.csv', '.txt'];

export const UPLOAD_MESSAGES = {
  noFile: 'Please choose a CSV or TXT file to upload (form field "file").',
  wrongType: 'Only .csv and .txt files are accepted.',
  tooLarge: 'The file is too large. The maximum upload size is 50 MB.',
  empty: 'The file contains no voucher codes.',
  noneValid:
    'The file contains no valid voucher codes. Codes may only contain letters, numbers, hyphens and underscores (at most 100 characters).',
  unreadable: 'The upload could not be read.',
  productNotFound: 'Product not found.',
} as const;

export interface UploadResult {
  message: string;
  inserted: number;
  duplicates: number;
  invalid: number;
  invalidSamples: string[];
}

interface FileInfo {
  filename: string;
  kind: 'csv' | 'txt';
}

/**
 * Voucher upload (DECISIONS §9), streamed end to end: multipart (busboy) → lines (csv-parse or a line
 * splitter) → validated, upper-cased codes → `COPY` into a temporary table → one
 * `INSERT … SELECT … ON CONFLICT DO NOTHING`. Memory stays flat whatever the file size, and the whole
 * load is one transaction: a refused file (too large, unreadable, nothing valid) writes nothing.
 */
@Injectable()
export class VoucherUploadService {
  constructor(
    private readonly codes: VoucherCodeRepository,
    private readonly products: ProductService,
    private readonly audit: AuditService,
    private readonly realtime: RealtimeService,
  ) {}

  async upload(productId: string, req: Request, ctx: RequestActor): Promise<UploadResult> {
    let filename: string | undefined;
    try {
      const product = await this.products.find(productId);
      if (!product) throw new NotFoundException(UPLOAD_MESSAGES.productNotFound);
      if (!/^multipart\/form-data/i.test(req.headers['content-type'] ?? '')) {
        throw new BadRequestException(UPLOAD_MESSAGES.noFile);
      }
      const result = await this.receive(req, (source, info) => {
        filename = info.filename;
        return this.load(productId, source, info);
      });
      const duplicates = result.counts.valid - result.inserted;
      const response: UploadResult = {
        message: summary(result.inserted, duplicates, result.counts.invalid),
        inserted: result.inserted,
        duplicates,
        invalid: result.counts.invalid,
        invalidSamples: result.counts.invalidSamples,
      };
      await this.audit.record({
        ...ctx,
        action: 'vouchers.upload',
        success: true,
        resource: 'product',
        resourceId: productId,
        details: { filename, inserted: response.inserted, duplicates, invalid: response.invalid },
      });
      if (response.inserted > 0) {
        this.realtime.emit('voucherUpdate', `${response.inserted} voucher code(s) uploaded for ${product.name}`);
      }
      return response;
    } catch (err) {
      // Whatever happened, the request body must be consumed before answering, or the client sees a reset.
      await drain(req);
      await this.audit.record({
        ...ctx,
        action: 'vouchers.upload',
        success: false,
        resource: 'product',
        resourceId: productId,
        details: { filename, reason: err instanceof HttpException ? err.message : 'error' },
      });
      throw err;
    }
  }

  /**
   * Parses the multipart body and hands the first `file` part to `load`; settles once both the
   * whole request has been read and the load has finished.
   */
  private receive(
    req: Request,
    load: (source: Readable, info: FileInfo) => Promise<{ counts: CodeCounts; inserted: number }>,
  ): Promise<{ counts: CodeCounts; inserted: number }> {
    return new Promise((resolve, reject) => {
      let bb: busboy.Busboy;
      try {
        // One byte over the limit marks the file truncated: a file of exactly 50 MB is accepted.
        bb = busboy({
          headers: req.headers,
          limits: { fileSize: MAX_UPLOAD_BYTES + 1, files: 1, fields: 20, parts: 30 },
        });
      } catch {
        return reject(new BadRequestException(UPLOAD_MESSAGES.noFile));
      }
      let job: Promise<{ counts: CodeCounts; inserted: number }> | undefined;
      let refusal: HttpException | undefined;
      let settled = false;
      const fail = (err: unknown) => {
        if (settled) return;
        settled = true;
        reject(err);
      };

      bb.on('file', (field, file, info) => {
        if (field !== 'file' || job || refusal) {
          file.resume();
          return;
        }
        const ext = extname(info.filename ?? '').toLowerCase();
        if (!ACCEPTED_EXTENSIONS.includes(ext)) {
          refusal = new BadRequestException(UPLOAD_MESSAGES.wrongType);
          file.resume();
          return;
        }
        // Piped (not passed to pipeline) so a failed load can leave busboy's stream to be drained.
        const source = new PassThrough();
        file.on('error', (err) => source.destroy(err));
        // Over the limit: stop loading at once (the transaction rolls back); the rest is drained below.
        file.on('limit', () => source.destroy(new PayloadTooLargeException(UPLOAD_MESSAGES.tooLarge)));
        file.pipe(source);
        job = load(source, { filename: info.filename ?? '', kind: ext === '.csv' ? 'csv' : 'txt' })
          .then((result) => {
            if ((file as Readable & { truncated?: boolean }).truncated)
              throw new PayloadTooLargeException(UPLOAD_MESSAGES.tooLarge);
            return result;
          })
          .finally(() => {
            file.unpipe(source);
            file.resume();
          });
        // Observed here so an early failure is not reported as unhandled before the body is read.
        job.catch(() => undefined);
      });
      bb.on('error', () => fail(new BadRequestException(UPLOAD_MESSAGES.unreadable)));
      bb.on('close', () => {
        if (refusal) return fail(refusal);
        if (!job) return fail(new BadRequestException(UPLOAD_MESSAGES.noFile));
        job.then((result) => {
          if (!settled) {
            settled = true;
            resolve(result);
          }
        }, fail);
      });
      // A client that goes away mid-upload: stop, so the load rolls back and frees its connection.
      req.on('close', () => {
        if (!req.complete) bb.destroy(new Error('Upload aborted'));
      });
      req.pipe(bb);
    });
  }

  private async load(
    productId: string,
    source: Readable,
    info: FileInfo,
  ): Promise<{ counts: CodeCounts; inserted: number }> {
    const codes = new CodeFilter();
    const records =
      info.kind === 'csv'
        ? parse({
            bom: true,
            delimiter: [',', ';', '\t'],
            relax_column_count: true,
            relax_quotes: true,
            skip_empty_lines: true,
            max_record_size: 10_000,
          })
        : new LineRecords();
    try {
      // Existing codes (of any product) and repeats inside the file are skipped, never changed.
      const inserted = await this.codes.copyIn(productId, async (copy) => {
        try {
          await pipeline(source, new TextOnly(), records, codes, copy);
        } catch (err) {
          if (err instanceof UnreadableFileError) throw new BadRequestException(err.message);
          if (err instanceof CsvError) throw new BadRequestException(`The file could not be read as CSV: ${err.message}`);
          throw err;
        }
        // Thrown inside the load, so nothing of a refused file is written.
        if (codes.counts.valid === 0) {
          if (codes.counts.invalid === 0) throw new BadRequestException(UPLOAD_MESSAGES.empty);
          throw new BadRequestException({
            message: UPLOAD_MESSAGES.noneValid,
            error: 'Bad Request',
            inserted: 0,
            duplicates: 0,
            invalid: codes.counts.invalid,
            invalidSamples: codes.counts.invalidSamples,
          });
        }
      });
      return { counts: codes.counts, inserted };
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

/** Reads and discards what is left of a request body. */
function drain(req: Request): Promise<void> {
  if (req.complete || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.on('end', resolve);
    req.on('close', resolve);
    req.unpipe();
    req.resume();
  });
}
