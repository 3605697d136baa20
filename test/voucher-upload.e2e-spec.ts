import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, productId, PRODUCTS } from './helpers/factories';

describe('POST /api/products/:id/voucher-codes (upload)', () => {
  let t: TestApp;
  let admin: string;
  let proPlus: string;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp();
    admin = bearer(await tokenFor(t, 'admin')).Authorization;
    proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

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
    const csv = '\ufeffcode,batch\r\n  csv-a1 ,x\r\nCSV-A2,y\r\n"csv_a3",z\r\n\r\n';
    const res = await upload(proPlus, csv, 'codes.csv').expect(201);
    expect(res.body).toEqual({
      message: '3 voucher codes uploaded.',
      inserted: 3,
      duplicates: 0,
      invalid: 0,
      invalidSamples: [],
    });
    expect(await codesOf(proPlus)).toEqual(['CSV-A1', 'CSV-A2', 'CSV_A3']);
  });

  it('counts duplicates inside the file and against the database, and invalid lines, exactly', async () => {
    await addCodes(t.db, mac, ['TXT-EXISTING']);
    const txt = ['txt-b1', 'TXT-B1', '  Txt-B2  ', 'txt-existing', 'bad code!', 'x'.repeat(101), '', 'TXT-B3', 'ÄÖÜ'].join('\n');
    const res = await upload(proPlus, txt, 'CODES.TXT').expect(201);
    expect(res.body).toEqual({
      message: '3 voucher codes uploaded, skipped 2 duplicates and 3 invalid lines.',
      inserted: 3,
      duplicates: 2,
      invalid: 3,
      invalidSamples: ['bad code!', `${'x'.repeat(50)}…`, 'ÄÖÜ'],
    });
    // The existing code stays with its own product.
    const [existing] = await t.db.query(`SELECT product_id FROM voucher_codes WHERE code = 'TXT-EXISTING'`);
    expect(existing.product_id).toBe(mac);
    expect(await codesOf(proPlus)).toEqual(expect.arrayContaining(['TXT-B1', 'TXT-B2', 'TXT-B3']));
  });

  it('uploading the same file again inserts nothing and reports every code as duplicate', async () => {
    const res = await upload(proPlus, 'CSV-A1\nCSV-A2\n', 'again.txt').expect(201);
    expect(res.body).toMatchObject({ inserted: 0, duplicates: 2, invalid: 0 });
  });

  it('refuses an .exe, an empty file, a binary file and a request without a file, writing nothing', async () => {
    const before = await count();
    const exe = await upload(proPlus, 'NEW-CODE-1\n', 'setup.exe').expect(400);
    expect(exe.body).toEqual({ statusCode: 400, message: 'Only .csv and .txt files are accepted.', error: 'Bad Request' });

    const empty = await upload(proPlus, '', 'empty.csv').expect(400);
    expect(empty.body.message).toBe('The file contains no voucher codes.');
    const blank = await upload(proPlus, '\n\n  \n', 'blank.txt').expect(400);
    expect(blank.body.message).toBe('The file contains no voucher codes.');

    const binary = await upload(proPlus, Buffer.from([0x4d, 0x5a, 0x00, 0x01, 0x0a, 0x41]), 'renamed.txt').expect(400);
    expect(binary.body.message).toBe('The file is not a readable CSV or text file.');

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
    const before = await count();
    const res = await upload(proPlus, 'not valid\nalso/bad\n', 'bad.txt').expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, inserted: 0, invalid: 2, invalidSamples: ['not valid', 'also/bad'] });
    expect(res.body.message).toMatch(/^The file contains no valid voucher codes/);
    expect(await count()).toBe(before);
  });

  it('answers 404 for an unknown product and 400 for a malformed id', async () => {
    const res = await upload('00000000-0000-4000-8000-000000000000', 'ABC-1\n', 'a.txt').expect(404);
    expect(res.body.message).toBe('Product not found.');
    await upload('not-a-uuid', 'ABC-1\n', 'a.txt').expect(400);
  });

  it('refuses a file over 50 MB with 413 and writes nothing, even though its start was valid', async () => {
    const before = await count();
    const line = 'BIG-0000000000\n';
    const big = Buffer.alloc(50 * 1024 * 1024 + line.length * 10);
    for (let offset = 0, i = 0; offset + line.length <= big.length; offset += line.length, i++) {
      big.write(`BIG-${String(i).padStart(10, '0')}\n`, offset, 'ascii');
    }
    const res = await upload(proPlus, big.subarray(0, Math.floor(big.length / line.length) * line.length), 'big.txt').expect(413);
    expect(res.body).toEqual({
      statusCode: 413,
      message: 'The file is too large. The maximum upload size is 50 MB.',
      error: 'Payload Too Large',
    });
    expect(await count()).toBe(before);
  });

  it('records the upload in the security audit log', async () => {
    const rows = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.upload' AND resource_id = $1 ORDER BY created_at`,
      [proPlus],
    );
    expect(rows.some((r: { success: boolean }) => r.success)).toBe(true);
    expect(rows.some((r: { success: boolean }) => !r.success)).toBe(true);
    expect(rows[0].details).toMatchObject({ filename: 'codes.csv', inserted: 3 });
  });
});
