import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes } from './helpers/factories';
import { waitUntil } from './helpers/processes';
import { randomHex } from './helpers/seed';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('POST /api/products/:id/voucher-codes (upload)', () => {
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = bearer(await tokenFor(t, 'admin')).Authorization;
  });
  afterAll(() => t.close());

  /** A product of the test's own, so what it reads is what it wrote. */
  const newProduct = async (): Promise<string> =>
    (await t.db.query(`INSERT INTO products (name) VALUES ($1) RETURNING id`, [`Upload ${randomHex(4)}`]))[0].id;

  const upload = (product: string, content: string | Buffer, filename: string) =>
    t
      .http()
      .post(`/api/products/${product}/voucher-codes`)
      .set('Authorization', admin)
      .attach('file', Buffer.isBuffer(content) ? content : Buffer.from(content, 'utf8'), filename);

  const codesOf = async (product: string): Promise<string[]> =>
    (await t.db.query(`SELECT code FROM voucher_codes WHERE product_id = $1 ORDER BY code`, [product])).map(
      (r: { code: string }) => r.code,
    );

  const count = async (): Promise<number> => (await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes`))[0].n;

  it('loads a CSV with a header: trimmed, upper-cased, first column only', async () => {
    const proPlus = await newProduct();
    const csv = '\ufeffcode,batch\r\n  csv-a1 ,x\r\nCSV-A2,y\r\n"csv_a3",z\r\n\r\n';
    const res = await upload(proPlus, csv, 'codes.csv').expect(201);
    expect(res.body).toEqual({
      message: '3 voucher codes uploaded.',
      inserted: 3,
      duplicates: 0,
      invalid: 0,
      invalidSamples: [],
      batchId: expect.stringMatching(UUID),
    });
    expect(await codesOf(proPlus)).toEqual(['CSV-A1', 'CSV-A2', 'CSV_A3']);
    // The codes carry the upload's batch (docs/product.md §20.1).
    const batches = await t.db.query(`SELECT DISTINCT batch_id FROM voucher_codes WHERE product_id = $1`, [proPlus]);
    expect(batches).toEqual([{ batch_id: res.body.batchId }]);
  });

  it('counts duplicates inside the file and against the database, and invalid lines, exactly', async () => {
    const [proPlus, mac] = [await newProduct(), await newProduct()];
    await addCodes(t.db, mac, ['TXT-EXISTING']);
    const txt = [
      'txt-b1',
      'TXT-B1',
      '  Txt-B2  ',
      'txt-existing',
      'bad code!',
      'x'.repeat(101),
      '',
      'TXT-B3',
      'ÄÖÜ',
    ].join('\n');
    const res = await upload(proPlus, txt, 'CODES.TXT').expect(201);
    expect(res.body).toEqual({
      message: '3 voucher codes uploaded, skipped 2 duplicates and 3 invalid lines.',
      inserted: 3,
      duplicates: 2,
      invalid: 3,
      invalidSamples: ['bad code!', `${'x'.repeat(50)}…`, 'ÄÖÜ'],
      batchId: expect.stringMatching(UUID),
    });
    // The existing code stays with its own product.
    const [existing] = await t.db.query(`SELECT product_id FROM voucher_codes WHERE code = 'TXT-EXISTING'`);
    expect(existing.product_id).toBe(mac);
    expect(await codesOf(proPlus)).toEqual(['TXT-B1', 'TXT-B2', 'TXT-B3']);
  });

  it('uploading the same file again inserts nothing and reports every code as duplicate', async () => {
    const product = await newProduct();
    await upload(product, 'AGAIN-1\nAGAIN-2\n', 'again.txt').expect(201);
    const res = await upload(product, 'AGAIN-1\nAGAIN-2\n', 'again.txt').expect(201);
    expect(res.body).toMatchObject({ inserted: 0, duplicates: 2, invalid: 0 });
    expect(await codesOf(product)).toEqual(['AGAIN-1', 'AGAIN-2']);
  });

  it('refuses an .exe, an empty file, a binary file and a request without a file, writing nothing', async () => {
    const proPlus = await newProduct();
    const before = await count();
    const exe = await upload(proPlus, 'NEW-CODE-1\n', 'setup.exe').expect(400);
    expect(exe.body).toEqual({
      statusCode: 400,
      message: 'Only .csv and .txt files are accepted.',
      error: 'Bad Request',
    });

    const empty = await upload(proPlus, '', 'empty.csv').expect(400);
    expect(empty.body.message).toBe('The file contains no voucher codes.');
    const blank = await upload(proPlus, '\n\n  \n', 'blank.txt').expect(400);
    expect(blank.body.message).toBe('The file contains no voucher codes.');

    const binary = await upload(proPlus, Buffer.from([0x4d, 0x5a, 0x00, 0x01, 0x0a, 0x41]), 'renamed.txt').expect(400);
    expect(binary.body.message).toBe(
      'The file is not a readable CSV or text file. Save it as UTF-8 CSV or plain text.',
    );

    const noFile = await t
      .http()
      .post(`/api/products/${proPlus}/voucher-codes`)
      .set('Authorization', admin)
      .field('other', 'x')
      .expect(400);
    expect(noFile.body.message).toMatch(/^Please choose a CSV or TXT file/);

    const json = await t
      .http()
      .post(`/api/products/${proPlus}/voucher-codes`)
      .set('Authorization', admin)
      .send({ file: 'X' })
      .expect(400);
    expect(json.body.message).toMatch(/^Please choose a CSV or TXT file/);
    expect(await count()).toBe(before);
  });

  it('refuses a file with no valid code, reporting the invalid lines', async () => {
    const proPlus = await newProduct();
    const before = await count();
    const res = await upload(proPlus, 'not valid\nalso/bad\n', 'bad.txt').expect(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      inserted: 0,
      invalid: 2,
      invalidSamples: ['not valid', 'also/bad'],
    });
    expect(res.body.message).toMatch(/^The file contains no valid voucher codes/);
    expect(await count()).toBe(before);
  });

  it('answers 404 for an unknown product and 400 for a malformed id', async () => {
    const res = await upload('00000000-0000-4000-8000-000000000000', 'ABC-1\n', 'a.txt').expect(404);
    expect(res.body.message).toBe('Product not found.');
    await upload('not-a-uuid', 'ABC-1\n', 'a.txt').expect(400);
  });

  it('refuses a file over 50 MB with 413 and writes nothing, even though its start was valid', async () => {
    const proPlus = await newProduct();
    const before = await count();
    const line = 'BIG-0000000000\n';
    const big = Buffer.alloc(50 * 1024 * 1024 + line.length * 10);
    for (let offset = 0, i = 0; offset + line.length <= big.length; offset += line.length, i++) {
      big.write(`BIG-${String(i).padStart(10, '0')}\n`, offset, 'ascii');
    }
    const res = await upload(
      proPlus,
      big.subarray(0, Math.floor(big.length / line.length) * line.length),
      'big.txt',
    ).expect(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: 'The file is too large. The maximum upload size is 50 MB.',
      error: 'Payload Too Large',
    });
    expect(await count()).toBe(before);
  });

  it('streams a 200,000-line file with duplicates and invalid lines, counting exactly', async () => {
    const product = await newProduct();
    const lines: string[] = ['code'];
    for (let i = 0; i < 200_000; i++) {
      if (i % 1000 === 999) {
        lines.push(`bad line ${i}`);
      } // 200 invalid
      else if (i % 500 === 0 && i > 0) {
        lines.push(`bulk-${String(i - 1).padStart(7, '0')}`);
      } // repeats the previous line's code
      else lines.push(`bulk-${String(i).padStart(7, '0')}`);
    }
    const valid = lines.slice(1).filter((l) => !l.startsWith('bad'));
    const repeats = valid.length - new Set(valid).size; // 200: every i = 500 mod 1000 repeats code i - 1
    const res = await upload(product, lines.join('\r\n'), 'bulk.csv').expect(201);
    expect(res.body.invalid).toBe(200);
    expect(repeats).toBe(200);
    expect(res.body.duplicates).toBe(repeats);
    expect(res.body.inserted).toBe(200_000 - 200 - repeats);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE product_id = $1`, [product]);
    expect(n).toBe(res.body.inserted);
  }, 120_000);

  it('two concurrent uploads of overlapping files insert each code once and count the rest as duplicates', async () => {
    const mac = await newProduct();
    const a = Array.from({ length: 3000 }, (_, i) => `RACE-${i}`);
    const b = Array.from({ length: 3000 }, (_, i) => `RACE-${i + 1500}`);
    const [ra, rb] = await Promise.all([upload(mac, a.join('\n'), 'a.txt'), upload(mac, b.join('\n'), 'b.txt')]);
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(ra.body.inserted + rb.body.inserted).toBe(4500);
    expect(ra.body.duplicates + rb.body.duplicates).toBe(1500);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE code LIKE 'RACE-%'`);
    expect(n).toBe(4500);
  });

  it('records the upload in the security audit log, accepted and refused', async () => {
    const product = await newProduct();
    await upload(product, 'code\nAUDIT-1\nAUDIT-2\n', 'codes.csv').expect(201);
    await upload(product, 'not valid\n', 'refused.txt').expect(400);
    const rows = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.upload' AND resource_id = $1 ORDER BY created_at`,
      [product],
    );
    expect(rows).toEqual([
      {
        success: true,
        details: {
          filename: 'codes.csv',
          inserted: 2,
          duplicates: 0,
          invalid: 0,
          batchId: expect.stringMatching(UUID),
        },
      },
      {
        success: false,
        details: {
          filename: 'refused.txt',
          reason: expect.stringMatching(/^The file contains no valid voucher codes/),
        },
      },
    ]);
  });

  describe('malformed files get a clear 400 and write nothing', () => {
    const longAfterQuote = [
      'code,batch',
      '"MAL-LQ0,a',
      ...Array.from({ length: 3000 }, (_, i) => `MAL-LQ${i + 1},b`),
    ].join('\n');
    const cases: Array<[string, string, string | Buffer, string]> = [
      [
        'an unbalanced quote',
        'codes.csv',
        'code,batch\nMAL-Q1,a\n"MAL-Q2,b\nMAL-Q3,c\n',
        'The file could not be read as CSV: a quotation mark (") opens a value that is never closed. Nothing was uploaded.',
      ],
      [
        'an unbalanced quote with thousands of lines after it',
        'codes.csv',
        longAfterQuote,
        'The file could not be read as CSV: a quotation mark (") opens a value that is never closed. Nothing was uploaded.',
      ],
      [
        'a wrong delimiter (|)',
        'codes.csv',
        'code|batch\nMAL-D1|a\nMAL-D2|b\n',
        'The file contains no valid voucher codes: its columns seem to be separated by "|". Separate columns with commas, semicolons or tabs, or put one code on each line.',
      ],
      [
        'a wrong delimiter (spaces) in a text file',
        'codes.txt',
        'MAL-S1 batch 1\nMAL-S2 batch 1\n',
        'The file contains no valid voucher codes: its columns seem to be separated by "spaces". Separate columns with commas, semicolons or tabs, or put one code on each line.',
      ],
      [
        'Latin-1 text',
        'codes.txt',
        Buffer.from('Gutscheincode für Office\nMAL-L1\nMAL-L2\n', 'latin1'),
        'The file is not UTF-8 text (it may have been saved as ANSI, Windows-1252 or Latin-1). Save it as UTF-8 CSV or plain text.',
      ],
      [
        'a Windows-1252 CSV whose codes are fine but a name is not',
        'codes.csv',
        Buffer.from('code,customer\nMAL-W1,Müller\nMAL-W2,Ø\n', 'latin1'),
        'The file is not UTF-8 text (it may have been saved as ANSI, Windows-1252 or Latin-1). Save it as UTF-8 CSV or plain text.',
      ],
      [
        'UTF-16 text',
        'codes.txt',
        Buffer.from('\ufeffMAL-U1\nMAL-U2\n', 'utf16le'),
        'The file is not a readable CSV or text file. Save it as UTF-8 CSV or plain text.',
      ],
    ];

    it.each(cases)('%s', async (_name, filename, content, message) => {
      const product = await newProduct();
      const res = await upload(product, content, filename).expect(400);
      expect(res.body).toMatchObject({ statusCode: 400, message, error: 'Bad Request' });
      expect(await codesOf(product)).toEqual([]);
      const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE code LIKE 'MAL-%'`);
      expect(n).toBe(0);
      const [audit] = await t.db.query(
        `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.upload' AND resource_id = $1`,
        [product],
      );
      expect(audit).toEqual({ success: false, details: { filename, reason: message } });
    });
  });
  it("merges the search index's pending list after an upload (migration 1763820000100)", async () => {
    await t.db.query(`CREATE EXTENSION IF NOT EXISTS pgstattuple`);
    const pendingPages = async (): Promise<number> =>
      (await t.db.query(`SELECT pending_pages FROM pgstatginindex('idx_voucher_codes_code_trgm')`))[0].pending_pages;
    const product = await newProduct();
    // Codes written by SQL wait in the pending list (vacuum would merge them, much later)…
    await addCodes(
      t.db,
      product,
      Array.from({ length: 300 }, (_, i) => `PENDING-${i}`),
    );
    expect(await pendingPages()).toBeGreaterThan(0);
    // …an upload's are merged after its answer, with those before them.
    const codes = Array.from({ length: 2000 }, (_, i) => `MERGE-${i}-${randomHex(3)}`);
    await upload(product, codes.join('\n'), 'codes.txt').expect(201);
    await waitUntil('the pending list merged', async () => (await pendingPages()) === 0, { timeoutMs: 10_000 });
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE code ILIKE '%MERGE-1999-%'`);
    expect(n).toBe(1);
  });
});
