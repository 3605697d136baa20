import { BadRequestException, HttpException, PayloadTooLargeException } from '@nestjs/common';
import busboy from 'busboy';
import { CsvError, parse } from 'csv-parse';
import { extname } from 'path';
import { PassThrough, Readable, type Writable } from 'stream';
import { pipeline } from 'stream/promises';
import { isValidText } from '../../common/input-text';
import { CodeCounts, CodeFilter, foreignSeparator, LineRecords, TextOnly, UnreadableFileError } from './code-stream';

/**
 * A file of voucher codes sent as multipart (docs/product.md §15.1: CSV or TXT up to 50 MB, one code a line or the first
 * column), shared by the upload and the void (refund) file: busboy → lines (csv-parse or a line splitter) →
 * validated, upper-cased codes (`CodeFilter`) → a `COPY … FROM STDIN` of the caller's. Streamed end to end.
 */

/** docs/product.md §15.1: CSV or TXT up to 50 MB. */
export const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;
const ACCEPTED_EXTENSIONS = ['.csv', '.txt'];

export const CODE_FILE_MESSAGES = {
  noFile: 'Please choose a CSV or TXT file to upload (form field "file").',
  wrongType: 'Only .csv and .txt files are accepted.',
  tooLarge: 'The file is too large. The maximum upload size is 50 MB.',
  empty: 'The file contains no voucher codes.',
  noneValid:
    'The file contains no valid voucher codes. Codes may only contain letters, numbers, hyphens and underscores (at most 100 characters).',
  foreignSeparator: (separator: string) =>
    `The file contains no valid voucher codes: its columns seem to be separated by "${separator === ' ' ? 'spaces' : separator}". ` +
    'Separate columns with commas, semicolons or tabs, or put one code on each line.',
  quoteNotClosed:
    'The file could not be read as CSV: a quotation mark (") opens a value that is never closed. Nothing was uploaded.',
  lineTooLong: 'The file could not be read as CSV: a line is longer than 10,000 characters. Nothing was uploaded.',
  unreadable: 'The upload could not be read.',
  badFileName: 'The file name contains a character that is not allowed (NUL or an unpaired UTF-16 surrogate).',
} as const;

export interface CodeFileInfo {
  filename: string;
  kind: 'csv' | 'txt';
}

/**
 * A request body as a controller hands it over (services see no HTTP framework object): its bytes, its content type
 * and whether the client has sent all of it.
 */
export interface IncomingBody {
  stream: Readable;
  contentType: string | undefined;
  /** True once the whole body has arrived (never for one the client broke off). */
  complete(): boolean;
}

export function isMultipart(body: IncomingBody): boolean {
  return /^multipart\/form-data/i.test(body.contentType ?? '');
}

/**
 * Parses the multipart body and hands the first `file` part to `load`; settles once both the whole request has
 * been read and the load has finished. A refused file (type, size, unreadable) rejects with its 4xx.
 */
export function receiveCodeFile<T>(
  body: IncomingBody,
  load: (source: Readable, info: CodeFileInfo) => Promise<T>,
): Promise<T> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      // One byte over the limit marks the file truncated: a file of exactly 50 MB is accepted.
      bb = busboy({
        headers: { 'content-type': body.contentType },
        limits: { fileSize: MAX_UPLOAD_BYTES + 1, files: 1, fields: 20, parts: 30 },
      });
    } catch {
      return reject(new BadRequestException(CODE_FILE_MESSAGES.noFile));
    }
    let job: Promise<T> | undefined;
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
      // The name is stored (batch, audit): text PostgreSQL refuses would fail the upload with a 500.
      if (!isValidText(info.filename ?? '')) {
        refusal = new BadRequestException(CODE_FILE_MESSAGES.badFileName);
        file.resume();
        return;
      }
      if (!ACCEPTED_EXTENSIONS.includes(ext)) {
        refusal = new BadRequestException(CODE_FILE_MESSAGES.wrongType);
        file.resume();
        return;
      }
      // Piped (not passed to pipeline) so a failed load can leave busboy's stream to be drained.
      const source = new PassThrough();
      file.on('error', (err) => source.destroy(err));
      // Over the limit: stop loading at once (the transaction rolls back); the rest is drained below.
      file.on('limit', () => source.destroy(new PayloadTooLargeException(CODE_FILE_MESSAGES.tooLarge)));
      file.pipe(source);
      job = load(source, { filename: info.filename ?? '', kind: ext === '.csv' ? 'csv' : 'txt' })
        .then((result) => {
          if ((file as Readable & { truncated?: boolean }).truncated) {
            throw new PayloadTooLargeException(CODE_FILE_MESSAGES.tooLarge);
          }
          return result;
        })
        .finally(() => {
          file.unpipe(source);
          file.resume();
        });
      // Observed here so an early failure is not reported as unhandled before the body is read.
      job.catch(() => undefined);
    });
    bb.on('error', () => fail(new BadRequestException(CODE_FILE_MESSAGES.unreadable)));
    bb.on('close', () => {
      if (refusal) return fail(refusal);
      if (!job) return fail(new BadRequestException(CODE_FILE_MESSAGES.noFile));
      job.then((result) => {
        if (!settled) {
          settled = true;
          resolve(result);
        }
      }, fail);
    });
    // A client that goes away mid-upload: stop, so the load rolls back and frees its connection.
    body.stream.on('close', () => {
      if (!body.complete()) bb.destroy(new Error('Upload aborted'));
    });
    body.stream.pipe(bb);
  });
}

/**
 * The file's codes through `codes` into `copy` (COPY text, one code a line). Unreadable content → 400; a file
 * without any valid code → 400 (thrown inside the caller's load, so nothing of it is written).
 */
export async function copyCodesFromFile(
  source: Readable,
  kind: CodeFileInfo['kind'],
  codes: CodeFilter,
  copy: Writable,
  refusalReport: Record<string, unknown> = {},
) {
  const records =
    kind === 'csv'
      ? parse({
          bom: true,
          delimiter: [',', ';', '\t'],
          // Every line ending, mixed: csv-parse's default takes the first one it meets as the only one (a CRLF file
          // with one LF line would join two codes into one invalid value).
          record_delimiter: ['\r\n', '\n', '\r'],
          relax_column_count: true,
          relax_quotes: true,
          skip_empty_lines: true,
          max_record_size: 10_000,
        })
      : new LineRecords();
  try {
    await pipeline(source, new TextOnly(), records, codes, copy);
  } catch (err) {
    if (err instanceof UnreadableFileError) throw new BadRequestException(err.message);
    if (err instanceof CsvError) throw new BadRequestException(csvProblem(err));
    throw err;
  }
  requireValidCodes(codes.counts, refusalReport);
}

/** A file or list with no well-formed code is refused: 400 with the invalid counts and the caller's empty report. */
export function requireValidCodes(counts: CodeCounts, report: Record<string, unknown> = {}): void {
  if (counts.valid > 0) return;
  if (counts.invalid === 0) throw new BadRequestException(CODE_FILE_MESSAGES.empty);
  // Lines that all look like several columns split by a separator we do not read: say which one.
  const separator = foreignSeparator(counts.invalidSamples);
  throw new BadRequestException({
    message: separator === undefined ? CODE_FILE_MESSAGES.noneValid : CODE_FILE_MESSAGES.foreignSeparator(separator),
    error: 'Bad Request',
    ...report,
    invalid: counts.invalid,
    invalidSamples: counts.invalidSamples,
  });
}

/** What went wrong reading a CSV file, in the user's terms. */
function csvProblem(err: CsvError): string {
  if (err.code === 'CSV_QUOTE_NOT_CLOSED') return CODE_FILE_MESSAGES.quoteNotClosed;
  if (err.code === 'CSV_MAX_RECORD_SIZE') {
    // A record that has grown over several lines can only be a quoted value that never closes.
    const count = (key: string) => (typeof err[key] === 'number' ? (err[key] as number) : 0);
    const firstLine = count('records') + count('empty_lines') + count('comment_lines') + 1;
    return count('lines') > firstLine ? CODE_FILE_MESSAGES.quoteNotClosed : CODE_FILE_MESSAGES.lineTooLong;
  }
  return `The file could not be read as CSV: ${err.message}. Nothing was uploaded.`;
}

/** Reads and discards what is left of a request body (before answering, or the client sees a reset). */
export function drain(body: IncomingBody): Promise<void> {
  const req = body.stream;
  if (body.complete() || req.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    req.on('end', resolve);
    req.on('close', resolve);
    req.unpipe();
    req.resume();
  });
}
