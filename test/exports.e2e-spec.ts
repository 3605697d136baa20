import { parse } from 'csv-parse/sync';
import { get as httpGet } from 'http';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TestApp } from './helpers/app';
import { createProduct, storeRedemption } from './helpers/admin-data';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, addLicenseKey } from './helpers/factories';

const BOM = '\ufeff';
const HEADER = [
  'Voucher Code',
  'First Name',
  'Last Name',
  'Email',
  'Phone',
  'Country',
  'Product',
  'Email Status',
  'License Key',
  'Download Link',
  'Redeemed At',
  'Exported At',
];

function csvRows(text: string): string[][] {
  expect(text.startsWith(BOM)).toBe(true);
  return parse(text.slice(BOM.length), { relax_column_count: false });
}

describe('exports', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  let product: string;
  let productName: string;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await tokenFor(t, 'admin'));
    // Every filename below carries this date.
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-03-05T10:00:00Z'));
    productName = 'Export Suite Product';
    product = await createProduct(t, auth, { name: productName, downloadLink: 'https://dl.example.com/suite' });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  const exportedFlags = async (codes: string[]) =>
    (
      await t.db.query(
        `SELECT v.code, r.exported, r.exported_at FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
          WHERE v.code = ANY($1) ORDER BY v.code`,
        [codes],
      )
    ).map((r: { code: string; exported: boolean; exported_at: Date | null }) => [
      r.code,
      r.exported,
      r.exported_at !== null,
    ]);

  describe('GET /api/export/redeemed-vouchers', () => {
    beforeAll(async () => {
      await storeRedemption(t, {
        product,
        code: 'EXP-FORMULA',
        firstName: '=HYPERLINK("x")',
        lastName: '@SUM(A1)',
        email: 'formula@example.com',
        phone: '+1 302 555 0100',
        redeemedAt: new Date('2026-03-01T09:00:00Z'),
      });
      const manual = await storeRedemption(t, {
        product,
        code: 'EXP-MANUAL',
        firstName: 'Mona',
        lastName: 'Manual',
        email: 'mona@example.com',
        emailStatus: 'pending',
        redeemedAt: new Date('2026-03-02T09:00:00Z'),
      });
      const key = await addLicenseKey(t.db, product, 'MANUAL_ABCDE-12345', {
        downloadLink: 'https://dl.example.com/manual',
      });
      await t.db.query(`INSERT INTO license_assignments (license_key_id, redemption_id) VALUES ($1, $2)`, [
        key,
        manual,
      ]);
      await storeRedemption(t, {
        product,
        code: 'EXP-FAILED',
        firstName: 'Fred',
        lastName: 'Failed',
        email: 'fred@example.com',
        emailStatus: 'failed',
        redeemedAt: new Date('2026-03-03T09:00:00Z'),
      });
    });

    it('streams a BOM-prefixed RFC 4180 CSV with neutralised formula cells and marks the rows exported', async () => {
      const res = await t.http().get('/api/export/redeemed-vouchers').query({ format: 'csv' }).set(auth).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="redeemed-vouchers-2026-03-05.csv"');
      // RFC 4180: CRLF line ends, quotes doubled inside a quoted cell.
      expect(res.text).toContain(`"'=HYPERLINK(""x"")"`);
      expect(res.text.split('\r\n')[0]).toBe(`${BOM}${HEADER.join(',')}`);

      const [header, ...rows] = csvRows(res.text);
      expect(header).toEqual(HEADER);
      expect(rows.map((r) => r[0])).toEqual(['EXP-FAILED', 'EXP-MANUAL', 'EXP-FORMULA']);
      const formula = rows[2];
      expect(formula.slice(0, 7)).toEqual([
        'EXP-FORMULA',
        `'=HYPERLINK("x")`,
        `'@SUM(A1)`,
        'formula@example.com',
        `'+1 302 555 0100`,
        '',
        productName,
      ]);
      expect(formula[7]).toBe('sent');
      expect(formula[8]).toBe('');
      expect(formula[9]).toBe('https://dl.example.com/suite');
      expect(formula[10]).toBe('2026-03-01T09:00:00.000Z');
      expect(new Date(formula[11]).getTime()).not.toBeNaN();
      // The MANUAL_ prefix never leaves the server; the assigned key's link wins over the product's.
      expect(rows[1].slice(7, 10)).toEqual(['pending', 'ABCDE-12345', 'https://dl.example.com/manual']);

      expect(await exportedFlags(['EXP-FAILED', 'EXP-FORMULA', 'EXP-MANUAL'])).toEqual([
        ['EXP-FAILED', true, true],
        ['EXP-FORMULA', true, true],
        ['EXP-MANUAL', true, true],
      ]);
    });

    it('moves exported rows to the exported view: the default view is now empty, showExported=true has them', async () => {
      const none = await t.http().get('/api/export/redeemed-vouchers').query({ format: 'csv' }).set(auth).expect(404);
      expect(none.body).toEqual({
        statusCode: 404,
        message: 'No redeemed vouchers found to export.',
        error: 'Not Found',
      });

      const again = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', emailStatus: 'failed' })
        .set(auth)
        .expect(200);
      expect(again.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(again.headers['content-disposition']).toBe('attachment; filename="redeemed-vouchers-2026-03-05.txt"');
      expect(again.text).toBe('EXP-FAILED\r\n');

      const search = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', search: 'MONA@' })
        .set(auth)
        .expect(200);
      expect(search.text).toBe('EXP-MANUAL\r\n');
      const byName = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', search: 'fred fail' })
        .set(auth)
        .expect(200);
      expect(byName.text).toBe('EXP-FAILED\r\n');
    });

    it('refuses an unknown format', async () => {
      const res = await t.http().get('/api/export/redeemed-vouchers').query({ format: 'xlsx' }).set(auth).expect(400);
      expect(res.body.message).toBe('format must be csv or txt');
    });
  });

  describe('an export that breaks off', () => {
    it('marks nothing when the client goes away mid-file', async () => {
      const own = await createProduct(t, auth, { name: 'Abort Export Product' });
      // 20,000 redemptions: far more than socket buffers hold, so the server is still writing when the client leaves.
      await t.db.query(
        `WITH v AS (
           INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at)
           SELECT 'ABORT-' || g, $1, true, now() FROM generate_series(1, 20000) g RETURNING id, code),
         c AS (
           INSERT INTO customers (first_name, last_name, email)
           SELECT 'Abort', 'Customer', lower(code) || '@example.com' FROM v RETURNING id, email)
         INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status)
         SELECT v.id, c.id, $1, 'sent' FROM v JOIN c ON c.email = lower(v.code) || '@example.com'`,
        [own],
      );
      const url = new URL('/api/export/redeemed-vouchers?format=csv&search=abort-', t.baseUrl);
      await new Promise<void>((resolve, reject) => {
        const req = httpGet(url, { headers: auth }, (res) => {
          expect(res.statusCode).toBe(200);
          res.once('data', () => {
            req.destroy();
            resolve();
          });
        });
        req.on('error', (err) => (req.destroyed ? undefined : reject(err)));
      });
      // The server notices, records the broken-off export and rolls back its marking.
      for (let i = 0; i < 100; i++) {
        const [row] = await t.db.query(
          `SELECT 1 FROM security_audit_log WHERE action = 'export.redeemed-vouchers' AND details->>'reason' = 'aborted'`,
        );
        if (row) break;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const [aborted] = await t.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'export.redeemed-vouchers' AND details->>'reason' = 'aborted'`,
      );
      expect(aborted).toBeDefined();
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM redemptions WHERE product_id = $1 AND exported`,
        [own],
      );
      expect(n).toBe(0);
    });
  });

  describe('POST /api/export/selected-redemptions', () => {
    it('exports and marks exactly the selected redemptions', async () => {
      const picked = await storeRedemption(t, { product, code: 'SEL-EXP-1', firstName: 'Sel', lastName: 'One' });
      await storeRedemption(t, { product, code: 'SEL-EXP-2', firstName: 'Sel', lastName: 'Two' });
      const res = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: [picked], format: 'csv' })
        .expect(200);
      expect(res.headers['content-disposition']).toBe('attachment; filename="selected-redemptions-2026-03-05.csv"');
      const [header, ...rows] = csvRows(res.text);
      expect(header).toEqual(HEADER);
      expect(rows.map((r) => [r[0], r[1], r[2]])).toEqual([['SEL-EXP-1', 'Sel', 'One']]);
      expect(await exportedFlags(['SEL-EXP-1', 'SEL-EXP-2'])).toEqual([
        ['SEL-EXP-1', true, true],
        ['SEL-EXP-2', false, false],
      ]);

      const txt = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: [picked], format: 'txt' })
        .expect(200);
      expect(txt.text).toBe('SEL-EXP-1\r\n');
    });

    it('answers 404 for ids that match nothing and 400 for a bad selection', async () => {
      const none = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: ['00000000-0000-4000-8000-000000000000'], format: 'csv' })
        .expect(404);
      expect(none.body.message).toBe('No redemptions found to export.');
      const empty = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: [] })
        .expect(400);
      expect(empty.body.message).toBe('Select at least one redemption to export.');
    });
  });

  describe('GET /api/export/redeemed-voucher-codes', () => {
    it('exports redeemed codes without customer data and marks nothing', async () => {
      const own = await createProduct(t, auth, { name: 'Redeemed Codes Product' });
      await storeRedemption(t, { product: own, code: 'RC-1', redeemedAt: new Date('2026-03-01T00:00:00Z') });
      await storeRedemption(t, { product: own, code: 'RC-2', redeemedAt: new Date('2026-03-02T00:00:00Z') });
      await addCodes(t.db, own, ['RC-UNUSED']);

      const csv = await t
        .http()
        .get('/api/export/redeemed-voucher-codes')
        .query({ format: 'csv', productId: own })
        .set(auth)
        .expect(200);
      expect(csv.headers['content-disposition']).toBe('attachment; filename="redeemed-voucher-codes-2026-03-05.csv"');
      expect(csvRows(csv.text)).toEqual([
        ['Voucher Code', 'Product', 'Redeemed At'],
        ['RC-2', 'Redeemed Codes Product', '2026-03-02T00:00:00.000Z'],
        ['RC-1', 'Redeemed Codes Product', '2026-03-01T00:00:00.000Z'],
      ]);
      const txt = await t
        .http()
        .get('/api/export/redeemed-voucher-codes')
        .query({ format: 'txt' })
        .set(auth)
        .expect(200);
      expect(txt.text.split('\r\n')).toEqual(expect.arrayContaining(['RC-1', 'RC-2', 'EXP-FORMULA']));
      expect(txt.text).not.toContain('RC-UNUSED');
      expect(await exportedFlags(['RC-1', 'RC-2'])).toEqual([
        ['RC-1', false, false],
        ['RC-2', false, false],
      ]);
    });
  });

  describe('GET /api/export/unredeemed-vouchers', () => {
    it('exports the unredeemed codes of a product as CSV and TXT, codes starting with - neutralised in CSV only', async () => {
      const own = await createProduct(t, auth, { name: 'Unredeemed Product' });
      await addCodes(t.db, own, ['UN-1', '-UN-2']);
      await storeRedemption(t, { product: own, code: 'UN-USED' });

      const csv = await t
        .http()
        .get('/api/export/unredeemed-vouchers')
        .query({ productId: own, format: 'csv' })
        .set(auth)
        .expect(200);
      expect(csv.headers['content-disposition']).toBe('attachment; filename="unredeemed-vouchers-2026-03-05.csv"');
      const rows = csvRows(csv.text);
      expect(rows[0]).toEqual(['Voucher Code', 'Product', 'Created At']);
      expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
        [`'-UN-2`, 'Unredeemed Product'],
        ['UN-1', 'Unredeemed Product'],
      ]);

      const txt = await t
        .http()
        .get('/api/export/unredeemed-vouchers')
        .query({ productId: own, format: 'txt' })
        .set(auth)
        .expect(200);
      expect(txt.text).toBe('-UN-2\r\nUN-1\r\n');
    });

    it('neutralises full-width formula characters (＝ ＋ － ＠) in the COPY export too', async () => {
      const names = ['＝HYPERLINK("x")', '＋Plus', '－Minus', '＠At'];
      const expected: string[][] = [];
      for (const [i, name] of names.entries()) {
        const own = await createProduct(t, auth, { name });
        await addCodes(t.db, own, [`FW-${i}`]);
        const csv = await t
          .http()
          .get('/api/export/unredeemed-vouchers')
          .query({ productId: own, format: 'csv' })
          .set(auth)
          .expect(200);
        expected.push([`FW-${i}`, `'${name}`]);
        expect(csvRows(csv.text).slice(1).map((r) => r.slice(0, 2))).toEqual([expected[i]]);
      }
    });

    it('answers 404 with SPEC text when a product has no unredeemed code', async () => {
      const own = await createProduct(t, auth, { name: 'Empty Export Product' });
      const res = await t
        .http()
        .get('/api/export/unredeemed-vouchers')
        .query({ productId: own, format: 'csv' })
        .set(auth)
        .expect(404);
      expect(res.body).toEqual({
        statusCode: 404,
        message: 'No unredeemed voucher codes found to export.',
        error: 'Not Found',
      });
      const unknown = await t
        .http()
        .get('/api/export/unredeemed-vouchers')
        .query({ productId: '00000000-0000-4000-8000-000000000000' })
        .set(auth)
        .expect(404);
      expect(unknown.body.message).toBe('Product not found.');
    });

    it('writes an audit entry per export', async () => {
      const rows = await t.db.query(
        `SELECT action, success, details FROM security_audit_log WHERE action LIKE 'export.%' ORDER BY created_at`,
      );
      expect(rows.map((r: { action: string }) => r.action)).toEqual(
        expect.arrayContaining([
          'export.redeemed-vouchers',
          'export.selected-redemptions',
          'export.redeemed-voucher-codes',
          'export.unredeemed-vouchers',
        ]),
      );
      expect(rows[0]).toMatchObject({
        action: 'export.redeemed-vouchers',
        success: true,
        details: { format: 'csv', rows: 3 },
      });
    });
  });
});
