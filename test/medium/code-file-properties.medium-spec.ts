import fc from 'fast-check';
import { Readable } from 'stream';
import { AuditModule } from '../../backend/src/modules/audit/audit.module';
import { JobsModule } from '../../backend/src/modules/jobs/jobs.module';
import { ProductModule } from '../../backend/src/modules/product/product.module';
import { RealtimeModule } from '../../backend/src/modules/realtime/realtime.module';
import { VoucherModule } from '../../backend/src/modules/voucher/voucher.module';
import { VoucherUploadService } from '../../backend/src/modules/voucher/voucher-upload.service';
import { MISMATCHES_SQL } from '../helpers/counters';
import { licenseManagedProduct } from '../helpers/factories';
import { MediumModule, startMediumModule } from '../helpers/medium';
import { checkProperty } from '../helpers/properties';

/** One line of a generated file: a code of the file's pool (as typed), a blank line or an invalid one. */
type Line =
  | { kind: 'code'; index: number; typed: 'upper' | 'lower' | 'as-is'; pad: string; quoted: boolean; more: string }
  | { kind: 'blank'; text: string }
  | { kind: 'invalid'; text: string };

const BOUNDARY = 'fc-property-boundary-7MA4YWxkTrZu0gW';
const EOLS = ['\n', '\r\n', '\r'];
/** Lines no voucher code can be (a space, a slash, a letter outside ASCII, 101 characters, a lone '#'). */
const INVALID = ['not a code', 'AB/12', 'ÄÖ-1', 'X'.repeat(101), '#', 'a\u00a0b'];
const HEADERS = ['code', 'Voucher Code', 'voucher_code', 'CODES'];

const line = (csv: boolean): fc.Arbitrary<Line> =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('code' as const),
        index: fc.nat(),
        typed: fc.constantFrom('upper' as const, 'lower' as const, 'as-is' as const),
        // Spaces around the value (tabs too in TXT; in CSV a tab separates columns).
        pad: fc.constantFrom('', ' ', '  ', ...(csv ? [] : ['\t'])),
        quoted: csv ? fc.boolean() : fc.constant(false),
        // CSV: more columns after the code, with any of the three separators.
        more: csv ? fc.constantFrom('', ',note', ';2024-05-01', '\tbatch 7', ',"a, b",c') : fc.constant(''),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('blank' as const),
        text: fc.constantFrom('', ' ', '   ', ...(csv ? [',', ' ; '] : ['\t'])),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('invalid' as const), text: fc.constantFrom(...INVALID) }) },
  );

/** A file: its pool of distinct codes, its lines (one code at least), line endings, BOM, header, chunk cuts. */
const codeFile = fc.constantFrom('csv' as const, 'txt' as const).chain((kind) =>
  fc.record({
    kind: fc.constant(kind),
    pool: fc.uniqueArray(fc.stringMatching(/^[A-Za-z0-9_-]{1,40}$/), {
      minLength: 1,
      maxLength: 8,
      selector: (c) => c.toUpperCase(),
    }),
    lines: fc
      .tuple(fc.array(line(kind === 'csv'), { maxLength: 40 }), line(kind === 'csv'), fc.nat())
      .map(([lines, one, at]) => {
        const code: Line =
          one.kind === 'code' ? one : { kind: 'code', index: at, typed: 'as-is', pad: '', quoted: false, more: '' };
        return [...lines.slice(0, at % (lines.length + 1)), code, ...lines.slice(at % (lines.length + 1))];
      }),
    eols: fc.array(fc.constantFrom(...EOLS), { minLength: 1, maxLength: 41 }),
    lastEol: fc.boolean(),
    bom: fc.boolean(),
    header: fc.option(fc.constantFrom(...HEADERS), { nil: undefined }),
    cuts: fc.array(fc.nat(), { maxLength: 6 }),
  }),
);
type CodeFile = typeof codeFile extends fc.Arbitrary<infer T> ? T : never;

/**
 * Issue 55 item 11: the voucher upload's file parser (backend/src/modules/voucher: busboy, csv-parse or the line
 * splitter, the code filter) through VoucherUploadService into PostgreSQL, on files fast-check draws: N codes (each
 * as typed: any case, padded, quoted or followed by more columns in CSV) with any mix of LF, CRLF and CR line endings,
 * a BOM or none, a header or none, blank and invalid lines among them, the request cut into chunks anywhere. The
 * upload stores exactly the file's distinct codes, upper-cased, and counts the repeats as duplicates and the invalid
 * lines as invalid.
 */
describe('the code-file parser, on any file of valid codes (medium, properties)', () => {
  let m: MediumModule;
  let uploads: VoucherUploadService;
  let run = 0;
  const actor = { adminUserId: null, ipAddress: '127.0.0.1', userAgent: 'medium' };

  beforeAll(async () => {
    m = await startMediumModule((config) => [
      AuditModule,
      RealtimeModule,
      ProductModule,
      VoucherModule,
      JobsModule.forRoot(config, { processJobs: false }),
    ]);
    uploads = m.get(VoucherUploadService);
  });
  afterAll(() => m?.close());

  /** The file's text and the codes it holds, in order; `prefix` keeps one run's codes apart from another's. */
  function render(file: CodeFile, prefix: string) {
    const codes: string[] = [];
    let invalid = 0;
    const texts = file.lines.map((l) => {
      if (l.kind !== 'code') {
        if (l.kind === 'invalid') invalid++;
        return l.text;
      }
      const code = `${prefix}${file.pool[l.index % file.pool.length]}`;
      codes.push(code.toUpperCase());
      const typed = l.typed === 'upper' ? code.toUpperCase() : l.typed === 'lower' ? code.toLowerCase() : code;
      const padded = `${l.pad}${typed}${l.pad}`;
      return `${l.quoted ? `"${padded}"` : padded}${l.more}`;
    });
    if (file.header) texts.unshift(file.kind === 'csv' ? `${file.header},note` : file.header);
    const eol = (i: number) => file.eols[i % file.eols.length];
    const text = texts.map((t, i) => (i < texts.length - 1 || file.lastEol ? t + eol(i) : t)).join('');
    return { text: `${file.bom ? '\ufeff' : ''}${text}`, codes, invalid };
  }

  /** The multipart request of an upload of `content` as `codes.<kind>`, delivered in chunks cut at `cuts`. */
  function request(kind: string, content: string, cuts: number[]) {
    const body = Buffer.concat([
      Buffer.from(
        `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="codes.${kind}"\r\n` +
          `Content-Type: ${kind === 'csv' ? 'text/csv' : 'text/plain'}\r\n\r\n`,
      ),
      Buffer.from(content, 'utf8'),
      Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
    ]);
    const at = [...new Set(cuts.map((c) => c % body.length))].sort((a, b) => a - b);
    const chunks = [0, ...at].map((start, i) => body.subarray(start, [...at, body.length][i])).filter((c) => c.length);
    const stream = Readable.from(chunks);
    return {
      stream,
      contentType: `multipart/form-data; boundary=${BOUNDARY}`,
      complete: () => stream.readableEnded,
    };
  }

  it('stores exactly the distinct codes of a file, whatever its line endings, BOM, blank lines, quoting', async () => {
    await checkProperty(
      fc.asyncProperty(codeFile, async (file) => {
        const prefix = `P${++run}-`;
        const { text, codes, invalid } = render(file, prefix);
        const product = await licenseManagedProduct(m.db, `Parsed ${prefix}`);
        const result = await uploads.upload(product, request(file.kind, text, file.cuts), actor);
        // ASCII codes: JavaScript's sort is the byte order of COLLATE "C".
        const distinct = [...new Set(codes)].sort();
        expect({ inserted: result.inserted, duplicates: result.duplicates, invalid: result.invalid }).toEqual({
          inserted: distinct.length,
          duplicates: codes.length - distinct.length,
          invalid,
        });
        const stored: Array<{ code: string }> = await m.db.query(
          `SELECT code FROM voucher_codes WHERE batch_id = $1 ORDER BY code COLLATE "C"`,
          [result.batchId],
        );
        expect(stored.map((r) => r.code)).toEqual(distinct);
      }),
      60,
    );
    expect(await m.db.query(MISMATCHES_SQL)).toEqual([]);
  });
});
