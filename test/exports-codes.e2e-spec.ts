import { createProduct, storeRedemption } from './helpers/admin-data';
import { TestApp } from './helpers/app';
import { csvRows, newTag, startExportApp } from './helpers/exports';
import { addCodes } from './helpers/factories';
import { eventually } from './helpers/redemptions';

/**
 * The code-only exports (COPY, no customer data, nothing marked): redeemed voucher codes and a product's unredeemed
 * codes, and the audit entry of every export. test/exports-redemptions.e2e-spec.ts has the redemption exports.
 */

describe('exports', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  let exportedFlags: (codes: string[]) => Promise<Array<[string, boolean, boolean]>>;

  beforeAll(async () => {
    ({ t, auth, exportedFlags } = await startExportApp());
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
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
        ['Voucher Code', 'Product', 'Redeemed At', 'Status', 'Refunded At'],
        ['RC-2', 'Redeemed Codes Product', '2026-03-02T00:00:00.000Z', 'Redeemed', ''],
        ['RC-1', 'Redeemed Codes Product', '2026-03-01T00:00:00.000Z', 'Redeemed', ''],
      ]);
      const txt = await t
        .http()
        .get('/api/export/redeemed-voucher-codes')
        .query({ format: 'txt', productId: own })
        .set(auth)
        .expect(200);
      expect(txt.text).toBe('RC-2\r\nRC-1\r\n');
      // Without a product: every product's redeemed codes, these among them.
      const all = await t
        .http()
        .get('/api/export/redeemed-voucher-codes')
        .query({ format: 'txt' })
        .set(auth)
        .expect(200);
      expect(all.text.split('\r\n')).toEqual(expect.arrayContaining(['RC-1', 'RC-2']));
      expect(all.text).not.toContain('RC-UNUSED');
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
      expect(rows[0]).toEqual(['Voucher Code', 'Product', 'Created At', 'Status']);
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
        expect(
          csvRows(csv.text)
            .slice(1)
            .map((r) => r.slice(0, 2)),
        ).toEqual([expected[i]]);
      }
    });

    it('answers 404 with the catalogue text when a product has no unredeemed code', async () => {
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
      const own = await createProduct(t, auth, { name: 'Audited Export Product' });
      const tag = newTag();
      const redemption = await storeRedemption(t, {
        product: own,
        code: `${tag}-AUD`.toUpperCase(),
        email: `aud@${tag}.example`,
      });
      await addCodes(t.db, own, [`${tag}-UNUSED`.toUpperCase()]);
      const [{ since }] = await t.db.query(`SELECT clock_timestamp() AS since`);

      await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'csv', search: `@${tag}.` })
        .set(auth)
        .expect(200);
      await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: [redemption], format: 'csv' })
        .expect(200);
      await t
        .http()
        .get('/api/export/redeemed-voucher-codes')
        .query({ format: 'csv', productId: own })
        .set(auth)
        .expect(200);
      await t
        .http()
        .get('/api/export/unredeemed-vouchers')
        .query({ format: 'txt', productId: own })
        .set(auth)
        .expect(200);

      // Each entry is written once its file has gone out, so the last one may follow the last answer by a moment.
      const rows = await eventually(
        async () => {
          const found = await t.db.query(
            `SELECT action, success, details FROM security_audit_log WHERE action LIKE 'export.%' AND created_at >= $1 ORDER BY created_at`,
            [since],
          );
          return found.length >= 4 ? found : undefined;
        },
        15_000,
        'four export audit entries',
      );
      expect(rows).toEqual([
        {
          action: 'export.redeemed-vouchers',
          success: true,
          details: expect.objectContaining({ format: 'csv', rows: 1 }),
        },
        {
          action: 'export.selected-redemptions',
          success: true,
          details: expect.objectContaining({ format: 'csv', rows: 1 }),
        },
        {
          action: 'export.redeemed-voucher-codes',
          success: true,
          details: expect.objectContaining({ format: 'csv', rows: 1, productId: own }),
        },
        {
          action: 'export.unredeemed-vouchers',
          success: true,
          details: expect.objectContaining({ format: 'txt', rows: 1, productId: own }),
        },
      ]);
    });
  });
});
