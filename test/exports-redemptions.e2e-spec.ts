import { get as httpGet, IncomingMessage } from 'http';
import { createProduct, storeRedemption } from './helpers/admin-data';
import { TestApp } from './helpers/app';
import { BOM, csvRows, HEADER, newTag, startExportApp } from './helpers/exports';
import { addCodes, addLicenseKey } from './helpers/factories';
import { eventually } from './helpers/redemptions';
import { countedCodes, countedRedemptions } from './helpers/counted-sql';

/**
 * The redemption exports (customer data, streamed, each exported row marked): the redemption list's export, the
 * selected redemptions' export, an export the client breaks off, and formula-like cells in every CSV export.
 * test/exports-codes.e2e-spec.ts has the code-only exports.
 */

describe('exports', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  let product: string;
  let productName: string;
  let exportedFlags: (codes: string[]) => Promise<Array<[string, boolean, boolean]>>;

  beforeAll(async () => {
    ({ t, auth, exportedFlags } = await startExportApp());
    productName = 'Export Suite Product';
    product = await createProduct(t, auth, { name: productName, downloadLink: 'https://dl.example.com/suite' });
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  /** Three unexported redemptions of the suite's product (one with formula-like names, one with a MANUAL_ key). */
  async function threeRedemptions(tag: string) {
    await storeRedemption(t, {
      product,
      code: `${tag}-FORMULA`.toUpperCase(),
      firstName: '=HYPERLINK("x")',
      lastName: '@SUM(A1)',
      email: `formula@${tag}.example`,
      phone: '+1 302 555 0100',
      redeemedAt: new Date('2026-03-01T09:00:00Z'),
    });
    const manual = await storeRedemption(t, {
      product,
      code: `${tag}-MANUAL`.toUpperCase(),
      firstName: 'Mona',
      lastName: 'Manual',
      email: `mona@${tag}.example`,
      emailStatus: 'pending',
      redeemedAt: new Date('2026-03-02T09:00:00Z'),
    });
    const key = await addLicenseKey(t.db, product, `MANUAL_${tag.toUpperCase()}-12345`, {
      downloadLink: 'https://dl.example.com/manual',
    });
    await t.db.query(`INSERT INTO license_assignments (license_key_id, redemption_id) VALUES ($1, $2)`, [key, manual]);
    await storeRedemption(t, {
      product,
      code: `${tag}-FAILED`.toUpperCase(),
      firstName: 'Fred',
      lastName: 'Failed',
      email: `fred@${tag}.example`,
      emailStatus: 'failed',
      redeemedAt: new Date('2026-03-03T09:00:00Z'),
    });
    return ['FAILED', 'MANUAL', 'FORMULA'].map((kind) => `${tag}-${kind}`.toUpperCase());
  }

  describe('GET /api/export/redeemed-vouchers', () => {
    it('streams a BOM-prefixed RFC 4180 CSV with neutralised formula cells and marks the rows exported', async () => {
      const tag = newTag();
      const codes = await threeRedemptions(tag);
      const res = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'csv', search: `@${tag}.` })
        .set(auth)
        .expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="redeemed-vouchers-2026-03-05.csv"');
      expect(res.headers['cache-control']).toBe('no-store');
      // RFC 4180: CRLF line ends, quotes doubled inside a quoted cell.
      expect(res.text).toContain(`"'=HYPERLINK(""x"")"`);
      expect(res.text.split('\r\n')[0]).toBe(`${BOM}${HEADER.join(',')}`);

      const [header, ...rows] = csvRows(res.text);
      expect(header).toEqual(HEADER);
      expect(rows.map((r) => r[0])).toEqual(codes);
      const formula = rows[2];
      expect(formula.slice(0, 7)).toEqual([
        codes[2],
        `'=HYPERLINK("x")`,
        `'@SUM(A1)`,
        `formula@${tag}.example`,
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
      expect(rows[1].slice(7, 10)).toEqual(['pending', `${tag.toUpperCase()}-12345`, 'https://dl.example.com/manual']);

      expect(await exportedFlags(codes)).toEqual([...codes].sort().map((code) => [code, true, true]));
    });

    it('moves exported rows to the exported view: the default view no longer has them, showExported=true has them', async () => {
      const tag = newTag();
      const [failed, manual] = await threeRedemptions(tag);
      await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', search: `@${tag}.` })
        .set(auth)
        .expect(200);

      const none = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'csv', search: `@${tag}.` })
        .set(auth)
        .expect(404);
      expect(none.body).toEqual({
        statusCode: 404,
        message: 'No redeemed vouchers found to export.',
        error: 'Not Found',
      });

      const again = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', emailStatus: 'failed', search: `@${tag}.` })
        .set(auth)
        .expect(200);
      expect(again.headers['content-type']).toBe('text/plain; charset=utf-8');
      expect(again.headers['content-disposition']).toBe('attachment; filename="redeemed-vouchers-2026-03-05.txt"');
      expect(again.text).toBe(`${failed}\r\n`);

      const search = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', search: `MONA@${tag.toUpperCase()}` })
        .set(auth)
        .expect(200);
      expect(search.text).toBe(`${manual}\r\n`);
      const byName = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'txt', showExported: 'true', search: `${tag}-fail` })
        .set(auth)
        .expect(200);
      expect(byName.text).toBe(`${failed}\r\n`);
    });

    it('refuses an unknown format', async () => {
      const res = await t.http().get('/api/export/redeemed-vouchers').query({ format: 'xlsx' }).set(auth).expect(400);
      expect(res.body.message).toBe('format must be csv or txt');
    });
  });

  describe('formula characters in product names, licence keys and download links', () => {
    // Every character a spreadsheet may read as the start of a formula (docs/product.md §16.1), and the full-width forms.
    const STARTS = ['=', '+', '-', '@', '\t', '\r', '＝', '＋', '－', '＠'];

    it('are neutralised in every CSV export, not only in customer fields', async () => {
      const tag = newTag();
      const cases: Array<{
        start: string;
        product: string;
        name: string;
        key: string;
        keyLink: string;
        productLink: string;
        keyed: string;
        unkeyed: string;
        ids: string[];
      }> = [];
      for (const [i, start] of STARTS.entries()) {
        const name = `${start}Product ${tag} ${i}`;
        const productLink = `${start}HYPERLINK("https://evil.example/p${i}")`;
        const keyLink = `${start}HYPERLINK("https://evil.example/k${i}")`;
        const key = `${start}KEY-${tag}-${i}`;
        const product = await createProduct(t, auth, { name });
        // The API trims names and takes only https links; an imported or older row may still hold anything.
        await t.db.query(`UPDATE products SET name = $2, download_link = $3 WHERE id = $1`, [
          product,
          name,
          productLink,
        ]);
        const keyed = `${tag}-K${i}`.toUpperCase();
        const unkeyed = `${tag}-N${i}`.toUpperCase();
        const withKey = await storeRedemption(t, { product, code: keyed, email: `k${i}@${tag}.example` });
        const withoutKey = await storeRedemption(t, { product, code: unkeyed, email: `n${i}@${tag}.example` });
        // A key as an admin may type it into assign-license (stored MANUAL_<key>, any text).
        const keyId = await addLicenseKey(t.db, product, `MANUAL_${key}`, { downloadLink: keyLink });
        await t.db.query(`INSERT INTO license_assignments (license_key_id, redemption_id) VALUES ($1, $2)`, [
          keyId,
          withKey,
        ]);
        await addCodes(t.db, product, [`${tag}-U${i}`.toUpperCase()]);
        cases.push({ start, product, name, key, keyLink, productLink, keyed, unkeyed, ids: [withKey, withoutKey] });
      }
      const neutral = (value: string) => `'${value}`;

      // The redemption exports: Product, License Key and Download Link cells (the key's link, else the product's).
      const byCode = (rows: string[][]) => Object.fromEntries(rows.map((row) => [row[0], row]));
      const selected = await t
        .http()
        .post('/api/export/selected-redemptions')
        .set(auth)
        .send({ redemptionIds: cases.flatMap((c) => c.ids), format: 'csv' })
        .expect(200);
      const listed = await t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'csv', showExported: 'true', search: `@${tag}.` })
        .set(auth)
        .expect(200);
      for (const [name, res] of [
        ['selected-redemptions', selected],
        ['redeemed-vouchers', listed],
      ] as const) {
        const [header, ...rows] = csvRows(res.text);
        expect(header).toEqual(HEADER);
        const rowOf = byCode(rows);
        for (const c of cases) {
          expect([name, c.start, rowOf[c.keyed]?.slice(6, 10)]).toEqual([
            name,
            c.start,
            [neutral(c.name), 'sent', neutral(c.key), neutral(c.keyLink)],
          ]);
          expect([name, c.start, rowOf[c.unkeyed]?.slice(6, 10)]).toEqual([
            name,
            c.start,
            [neutral(c.name), 'sent', '', neutral(c.productLink)],
          ]);
        }
      }

      // The code-only exports (COPY): the Product cell.
      for (const c of cases) {
        const redeemed = await t
          .http()
          .get('/api/export/redeemed-voucher-codes')
          .query({ format: 'csv', productId: c.product })
          .set(auth)
          .expect(200);
        const redeemedRows = csvRows(redeemed.text)
          .slice(1)
          .map((r) => r.slice(0, 2));
        expect([c.start, redeemedRows.sort()]).toEqual([
          c.start,
          [
            [c.keyed, neutral(c.name)],
            [c.unkeyed, neutral(c.name)],
          ].sort(),
        ]);
        const unredeemed = await t
          .http()
          .get('/api/export/unredeemed-vouchers')
          .query({ format: 'csv', productId: c.product })
          .set(auth)
          .expect(200);
        expect([
          c.start,
          csvRows(unredeemed.text)
            .slice(1)
            .map((r) => r.slice(0, 2)),
        ]).toEqual([c.start, [[`${tag}-U${STARTS.indexOf(c.start)}`.toUpperCase(), neutral(c.name)]]]);
      }
    });
  });

  describe('an export that breaks off', () => {
    it('marks nothing when the client goes away mid-file', async () => {
      const own = await createProduct(t, auth, { name: 'Abort Export Product' });
      // 20,000 redemptions: far more than socket buffers hold, so the server is still writing when the client leaves.
      await t.db.query(
        countedCodes(`INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at)
           SELECT 'ABORT-' || g, $1, true, now() FROM generate_series(1, 20000) g`),
        [own],
      );
      await t.db.query(
        `INSERT INTO customers (first_name, last_name, email)
         SELECT 'Abort', 'Customer', lower(code) || '@example.com' FROM voucher_codes WHERE product_id = $1`,
        [own],
      );
      await t.db.query(
        countedRedemptions(`INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, first_name, last_name)
         SELECT v.id, c.id, $1, 'sent', 'Abort', 'Customer'
           FROM voucher_codes v JOIN customers c ON c.email = lower(v.code) || '@example.com' WHERE v.product_id = $1`),
        [own],
      );
      const url = new URL('/api/export/redeemed-vouchers?format=csv&search=abort-', t.baseUrl);
      const res = await new Promise<IncomingMessage>((resolve, reject) =>
        httpGet(url, { headers: auth }, resolve).on('error', reject),
      );
      expect(res.statusCode).toBe(200);
      // The first bytes are in; the client leaves.
      await new Promise((resolve) => res.once('data', resolve));
      res.destroy();
      // The server notices, records the broken-off export and rolls back its marking.
      await eventually(
        async () =>
          (
            await t.db.query(
              `SELECT 1 FROM security_audit_log WHERE action = 'export.redeemed-vouchers' AND details->>'reason' = 'aborted'`,
            )
          ).length > 0,
        30_000,
        'the aborted export in the audit log',
      );
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
});
