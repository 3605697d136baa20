import { parse } from 'csv-parse';
import { Readable, Transform } from 'stream';
import { pipeline } from 'stream/promises';
import {
  CodeFilter,
  foreignSeparator,
  LineRecords,
  TextOnly,
  UNREADABLE_FILE_MESSAGES,
  UnreadableFileError,
} from './code-stream';

async function run(input: Buffer[], records: Transform): Promise<{ out: string; filter: CodeFilter }> {
  const filter = new CodeFilter();
  let out = '';
  await pipeline(Readable.from(input), new TextOnly(), records, filter, async (source: AsyncIterable<string>) => {
    for await (const chunk of source) out += chunk;
  });
  return { out, filter };
}

describe('voucher file parsing', () => {
  it('splits TXT lines across chunk boundaries, with CRLF, BOM and a multi-byte character split in two', async () => {
    const text = Buffer.from('\ufeffcode\r\nab-1\r\n  Cd_2  \nÄ-3\nEF-4', 'utf8');
    const split = text.indexOf(Buffer.from('Ä')) + 1; // inside the two bytes of Ä
    const { out, filter } = await run(
      [text.subarray(0, 9), text.subarray(9, split), text.subarray(split)],
      new LineRecords(),
    );
    expect(out).toBe('AB-1\nCD_2\nEF-4\n');
    expect(filter.counts).toEqual({ valid: 3, invalid: 1, invalidSamples: ['Ä-3'] });
  });

  it('takes the first CSV column, skips the header and empty lines', async () => {
    const csv = Buffer.from('Voucher Code;note\n"q-1";x\n\n;only-note\nq-2;y\n');
    const records = parse({ bom: true, delimiter: [',', ';', '\t'], relax_column_count: true, skip_empty_lines: true });
    const { out, filter } = await run([csv], records);
    expect(out).toBe('Q-1\nQ-2\n');
    expect(filter.counts).toEqual({ valid: 2, invalid: 1, invalidSamples: [''] });
  });

  it('counts a code over 100 characters as invalid and keeps only 10 samples', async () => {
    const lines = [`${'A'.repeat(100)}`, `${'B'.repeat(101)}`, ...Array.from({ length: 12 }, (_, i) => `bad ${i}`)];
    const { filter } = await run([Buffer.from(lines.join('\n'))], new LineRecords());
    expect(filter.counts.valid).toBe(1);
    expect(filter.counts.invalid).toBe(13);
    expect(filter.counts.invalidSamples).toHaveLength(10);
    expect(filter.counts.invalidSamples[0]).toBe(`${'B'.repeat(50)}…`);
  });

  it('refuses binary content', async () => {
    await expect(run([Buffer.from([0x41, 0x00, 0x42])], new LineRecords())).rejects.toBeInstanceOf(UnreadableFileError);
  });

  it('refuses text that is not UTF-8, in any chunk or cut off at the end', async () => {
    const notUtf8 = new UnreadableFileError(UNREADABLE_FILE_MESSAGES.notUtf8);
    const latin1 = Buffer.from('AB-1\nCD-2 für\n', 'latin1');
    await expect(run([Buffer.from('EF-3\n'), latin1], new LineRecords())).rejects.toEqual(notUtf8);
    const cutOff = Buffer.from('AB-1\nÄ', 'utf8').subarray(0, -1);
    await expect(run([cutOff], new LineRecords())).rejects.toEqual(notUtf8);
  });

  it('names the separator of a file whose every line is a code followed by a foreign separator', () => {
    expect(foreignSeparator(['code|batch', 'AB-1|x', 'AB-2|y'])).toBe('|');
    expect(foreignSeparator(['AB-1 first batch'])).toBe(' ');
    expect(foreignSeparator(['not valid', 'also/bad'])).toBeUndefined();
    expect(foreignSeparator(['ÄÖÜ|x'])).toBeUndefined();
    expect(foreignSeparator([])).toBeUndefined();
  });
});
