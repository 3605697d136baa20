import { StringDecoder } from 'string_decoder';
import { Transform, TransformCallback } from 'stream';
import { MAX_CODE_LENGTH, VOUCHER_CODE_PATTERN } from './voucher-code';

/** A line longer than this cannot be a code; it is counted invalid without keeping it whole in memory. */
const MAX_LINE_LENGTH = 10_000;
const INVALID_SAMPLE_COUNT = 10;
const HEADER = /^(voucher[ _-]?)?codes?$/i;

export interface CodeCounts {
  /** Lines that held a well-formed code (duplicates included). */
  valid: number;
  invalid: number;
  invalidSamples: string[];
}

export class UnreadableFileError extends Error {}

export const UNREADABLE_FILE_MESSAGES = {
  binary: 'The file is not a readable CSV or text file. Save it as UTF-8 CSV or plain text.',
  notUtf8:
    'The file is not UTF-8 text (it may have been saved as ANSI, Windows-1252 or Latin-1). Save it as UTF-8 CSV or plain text.',
} as const;

/**
 * Refuses what is not UTF-8 text: binary content (NUL bytes), so an .exe renamed to .txt is "unreadable", not
 * 100,000 invalid lines, and text in another encoding, whose accented characters would otherwise turn into
 * replacement characters inside codes. Checked across chunk boundaries; the whole file is refused.
 */
export class TextOnly extends Transform {
  private readonly utf8 = new TextDecoder('utf-8', { fatal: true });

  _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    if (chunk.includes(0)) return done(new UnreadableFileError(UNREADABLE_FILE_MESSAGES.binary));
    try {
      this.utf8.decode(chunk, { stream: true });
    } catch {
      return done(new UnreadableFileError(UNREADABLE_FILE_MESSAGES.notUtf8));
    }
    done(null, chunk);
  }

  _flush(done: TransformCallback): void {
    try {
      // A multi-byte character cut off at the end of the file.
      this.utf8.decode();
    } catch {
      return done(new UnreadableFileError(UNREADABLE_FILE_MESSAGES.notUtf8));
    }
    done();
  }
}

/** Separators people use that are not CSV's (comma, semicolon, tab). */
const FOREIGN_SEPARATORS = ['|', ':', '~', '^', '#', ' '];

/**
 * The separator a file of nothing but invalid lines seems to use instead of a comma, semicolon or tab: every
 * sample holds it, and what comes before it is a code (or the `code` header). Undefined when there is none.
 */
export function foreignSeparator(invalidSamples: string[]): string | undefined {
  if (!invalidSamples.length) return undefined;
  return FOREIGN_SEPARATORS.find((separator) =>
    invalidSamples.every((sample) => {
      const [first, ...rest] = sample.split(separator);
      const cell = first.trim();
      return rest.length > 0 && cell !== '' && (HEADER.test(cell) || VOUCHER_CODE_PATTERN.test(cell));
    }),
  );
}

/** TXT: one value per line (LF, CRLF or CR, mixed), UTF-8 BOM dropped. Emits `[line]` records like csv-parse does. */
export class LineRecords extends Transform {
  private rest = '';
  private first = true;
  private readonly decoder = new StringDecoder('utf8');

  constructor() {
    super({ readableObjectMode: true, decodeStrings: true });
  }

  _transform(chunk: Buffer, _enc: BufferEncoding, done: TransformCallback): void {
    let text = this.decoder.write(chunk);
    if (this.first) {
      this.first = false;
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
    }
    // A CR that ends the text so far may be the first half of a CRLF: it waits for the next chunk (or the end).
    const lines = (this.rest + text).split(/\r\n|\n|\r(?!$)/);
    this.rest = lines.pop() ?? '';
    for (const line of lines) this.pushLine(line);
    // A line that long is invalid whatever follows; keep only enough of it to stay invalid.
    if (this.rest.length > MAX_LINE_LENGTH) this.rest = this.rest.slice(0, MAX_LINE_LENGTH);
    done();
  }

  _flush(done: TransformCallback): void {
    this.rest += this.decoder.end();
    if (this.rest) this.pushLine(this.rest);
    done();
  }

  private pushLine(line: string): void {
    this.push([line.endsWith('\r') ? line.slice(0, -1) : line]);
  }
}

/**
 * Records in, COPY text out: the first column is trimmed and upper-cased; a well-formed code
 * (docs/product.md §6.1 voucher format, max 100) becomes one COPY line, anything else is counted invalid.
 * Empty lines and a `code` header on the first line are skipped. Output is batched (~64 KB).
 */
export class CodeFilter extends Transform {
  readonly counts: CodeCounts = { valid: 0, invalid: 0, invalidSamples: [] };
  private seenFirst = false;
  private batch = '';

  /** `skipHeader`: a file's first line may be a `code` header; a list sent as JSON has none. */
  constructor(private readonly skipHeader = true) {
    super({ writableObjectMode: true });
  }

  _transform(record: unknown[], _enc: BufferEncoding, done: TransformCallback): void {
    const raw = record[0] === undefined || record[0] === null ? '' : String(record[0]);
    const value = raw.trim();
    if (value === '' && record.every((cell) => String(cell ?? '').trim() === '')) return done();
    if (!this.seenFirst) {
      this.seenFirst = true;
      if (this.skipHeader && HEADER.test(value)) return done();
    }
    const code = value.toUpperCase();
    if (code.length > MAX_CODE_LENGTH || !VOUCHER_CODE_PATTERN.test(code)) {
      this.counts.invalid++;
      if (this.counts.invalidSamples.length < INVALID_SAMPLE_COUNT) {
        this.counts.invalidSamples.push(value.length > 50 ? `${value.slice(0, 50)}…` : value);
      }
      return done();
    }
    this.counts.valid++;
    // The pattern admits no tab, newline or backslash, so the code is a valid COPY text field as is.
    this.batch += `${code}\n`;
    if (this.batch.length >= 65_536) {
      const out = this.batch;
      this.batch = '';
      return done(null, out);
    }
    done();
  }

  _flush(done: TransformCallback): void {
    if (this.batch) this.push(this.batch);
    done();
  }
}
