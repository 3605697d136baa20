import { parse } from 'csv-parse/sync';
import { Client } from 'pg';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createProduct } from './helpers/admin-data';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { keysAssignedTo, redeemNew } from './helpers/redemptions';
import { connectAdmin, nextUpdate } from './helpers/realtime';
import { countedCodes } from './helpers/counted-sql';
import { RedemptionRepository } from '../backend/src/modules/redemption/redemption.repository';

const CANCELLED = 'This voucher code has been cancelled. Please contact support.';

/**
 * Refunds (docs/product.md §19.3): `POST /api/products/{id}/voucher-codes/void` with a file or `{codes}`, through the real
 * API on PostgreSQL: the answer's counts, what is written (and what is not), the 410 on redeem, keys that stay
 * with their customer, lists, counts, exports, audit, real time and who may do it.
 */
describe('POST /api/products/:id/voucher-codes/void (refunds)', () => {
  let t: TestApp;
  let admin: { Authorization: string };
  let operator: { Authorization: string };
  let shopManager: { Authorization: string };

  beforeAll(async () => {
    t = await startTestApp({ GEO_BLOCKED_COUNTRIES: '' });
    admin = bearer(await tokenFor(t, 'admin'));
    operator = bearer(await tokenFor(t, 'operator'));
    shopManager = bearer(await tokenFor(t, 'shop-manager'));
  });
  afterAll(() => t?.close());

  const voidFile = (product: string, content: string, filename: string, auth = operator) =>
    t
      .http()
      .post(`/api/products/${product}/voucher-codes/void`)
      .set(auth)
      .attach('file', Buffer.from(content, 'utf8'), filename);
  const voidList = (product: string, codes: unknown, auth = operator) =>
    t.http().post(`/api/products/${product}/voucher-codes/void`).set(auth).send({ codes });
  const stateOf = async (codes: string[]) =>
    Object.fromEntries(
      (
        await t.db.query(
          `SELECT v.code, v.is_redeemed, v.voided_at IS NOT NULL AS void, r.refunded_at IS NOT NULL AS refunded
             FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id WHERE v.code = ANY($1) ORDER BY v.code`,
          [codes],
        )
      ).map((r: { code: string; is_redeemed: boolean; void: boolean; refunded: boolean }) => [
        r.code,
        r.void ? 'void' : r.is_redeemed ? (r.refunded ? 'refunded' : 'redeemed') : 'available',
      ]),
    );
  const tableCounts = async () =>
    (
      await t.db.query(
        `SELECT (SELECT count(*) FROM redemptions)::int AS redemptions, (SELECT count(*) FROM customers)::int AS customers,
                (SELECT count(*) FROM success_tokens)::int AS tokens, (SELECT count(*) FROM license_assignments)::int AS assignments`,
      )
    )[0];

  it('a file of unredeemed, redeemed, unknown and already-void codes: exact counts, and each is treated as it should be', async () => {
    const product = await licenseManagedProduct(t.db, `Void ${randomCode('P')}`);
    const other = await createProduct(t, admin);
    const key = `VOIDKEY-${randomCode('K')}`;
    await addLicenseKey(t.db, product, key);
    const [a1, a2, gone, keep] = await addCodes(t.db, product, ['VD-A1', 'VD-A2', 'VD-GONE', 'VD-KEEP']);
    const [foreign] = await addCodes(t.db, other, ['VD-OTHER']);
    const redeemed = await redeemNew(t, product, {}, 'VD-R');
    expect(await keysAssignedTo(t, redeemed.id)).toEqual([
      { license_key: key, max_activations: 1, current_activations: 1 },
    ]);
    await voidList(product, [gone]).expect(200);

    const socket = await connectAdmin(t);
    const event = nextUpdate(socket, 'voucherUpdate');
    const csv = `code\r\n${a1}\r\n ${a2.toLowerCase()} \r\n${redeemed.code}\r\n${gone}\r\nVD-NEVER-UPLOADED\r\n${foreign}\r\nbad code!\r\n${a1}\r\n`;
    const res = await voidFile(product, csv, 'refunds.csv').expect(200);
    try {
      expect(res.body).toEqual({
        message:
          '2 voucher codes voided, 1 already redeemed (marked refunded, the customer keeps the key), 1 already void, 2 unknown.',
        voided: 2,
        refundedAfterRedemption: [
          {
            code: redeemed.code,
            redemptionId: redeemed.id,
            redeemedAt: expect.any(String),
            refundedAt: expect.any(String),
          },
        ],
        unknown: 2,
        alreadyVoid: 1,
        invalid: 1,
        invalidSamples: ['bad code!'],
        batchId: expect.stringMatching(/^[0-9a-f-]{36}$/),
      });
      expect((await event).message).toContain('2 voucher code(s) voided');
    } finally {
      socket.disconnect();
    }
    expect(await stateOf([a1, a2, gone, keep, foreign, redeemed.code])).toEqual({
      [a1]: 'void',
      [a2]: 'void',
      [gone]: 'void',
      [keep]: 'available',
      [foreign]: 'available',
      [redeemed.code]: 'refunded',
    });

    // The customer keeps the key already shown: still assigned, still used, never back in the pool.
    expect(await keysAssignedTo(t, redeemed.id)).toEqual([
      { license_key: key, max_activations: 1, current_activations: 1 },
    ]);
    // Its success page is closed: the key is no longer shown there (docs/product.md §19.3).
    const page = await t.http().get(`/api/success-token/${redeemed.successToken}`).expect(410);
    expect(page.body.message).toBe('This order has been refunded. Please contact support.');
    expect(JSON.stringify(page.body)).not.toContain(key);
    const next = await redeemNew(t, product, {}, 'VD-NEXT');
    expect(await keysAssignedTo(t, next.id)).toEqual([]);

    // The redemption carries refundedAt in the list and the details; the audit log has the void.
    const details = await t.http().get(`/api/redemptions/${redeemed.id}`).set(admin).expect(200);
    expect(details.body.refundedAt).toBe(res.body.refundedAfterRedemption[0].refundedAt);
    const list = await t.http().get('/api/redemptions').query({ search: redeemed.code }).set(admin).expect(200);
    expect(list.body.redemptions.map((r: { refundedAt: string | null }) => r.refundedAt)).toEqual([
      details.body.refundedAt,
    ]);
    const [audit] = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.void' AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [product],
    );
    expect(audit).toEqual({
      success: true,
      details: expect.objectContaining({
        source: 'file',
        filename: 'refunds.csv',
        voided: 2,
        refundedAfterRedemption: 1,
        unknown: 2,
        alreadyVoid: 1,
        invalid: 1,
        refundedRedemptionIds: [redeemed.id],
      }),
    });

    // Again: nothing new to void or refund. The refunded redemption counts as already void and keeps its first time.
    const again = await voidFile(product, csv, 'refunds.csv').expect(200);
    expect(again.body).toMatchObject({
      voided: 0,
      alreadyVoid: 4,
      unknown: 2,
      refundedAfterRedemption: [],
    });
    const after = await t.http().get(`/api/redemptions/${redeemed.id}`).set(admin).expect(200);
    expect(after.body.refundedAt).toBe(res.body.refundedAfterRedemption[0].refundedAt);
  });

  it('rolls the whole void back when its redemptions cannot be marked refunded', async () => {
    const product = await licenseManagedProduct(t.db, `VoidAtomic ${randomCode('P')}`);
    await addLicenseKey(t.db, product, `VA-${randomCode('K')}`);
    const [available] = await addCodes(t.db, product, [randomCode('VA')]);
    const redeemed = await redeemNew(t, product, {}, 'VA-R');
    const counts = async () => (await t.http().get(`/api/products/${product}`).set(operator).expect(200)).body;
    const before = await counts();

    // The redemption module's mark fails inside the void's transaction (its listener of `vouchers.refunded`).
    const mark = jest
      .spyOn(t.app.get(RedemptionRepository), 'markRefunded')
      .mockRejectedValueOnce(new Error('the refund mark failed'));
    try {
      await voidList(product, [available, redeemed.code]).expect(500);
      expect(mark).toHaveBeenCalledTimes(1);
    } finally {
      mark.mockRestore();
    }
    expect(await stateOf([available, redeemed.code])).toEqual({
      [available]: 'available',
      [redeemed.code]: 'redeemed',
    });
    expect(await counts()).toEqual(before);

    // Once the mark works the same void goes through, both halves in it.
    const res = await voidList(product, [available, redeemed.code]).expect(200);
    expect(res.body).toMatchObject({ voided: 1, refundedAfterRedemption: [{ code: redeemed.code }] });
    expect(await stateOf([available, redeemed.code])).toEqual({ [available]: 'void', [redeemed.code]: 'refunded' });
  });

  it("a void code's redeem is 410 with the message, and nothing is written", async () => {
    const product = await licenseManagedProduct(t.db, `Void410 ${randomCode('P')}`);
    await addLicenseKey(t.db, product, `V410-${randomCode('K')}`);
    const [code] = await addCodes(t.db, product, [randomCode('V410')]);
    await voidList(product, [code]).expect(200);
    const before = await tableCounts();
    const body = redeemBody({ voucherCode: code });

    const res = await t.http().post('/api/redeem-voucher').send(body).expect(410);
    expect(res.body).toEqual({ statusCode: 410, message: CANCELLED, error: 'Gone' });
    expect(await tableCounts()).toEqual(before);
    expect(await t.db.query(`SELECT 1 FROM customers WHERE email = $1`, [body.email])).toEqual([]);
    expect(await stateOf([code])).toEqual({ [code]: 'void' });
    const [{ free }] = await t.db.query(
      `SELECT count(*)::int AS free FROM license_keys WHERE product_id = $1 AND current_activations = 0`,
      [product],
    );
    expect(free).toBe(1);
  });

  it('void codes: their own tab, not active, counted; never deleted; exports carry the status', async () => {
    const product = await createProduct(t, admin, { name: `Void Lists ${randomCode('P')}` });
    await addCodes(t.db, product, ['VL-1', 'VL-2', 'VL-3']);
    const used = await redeemNew(t, product, {}, 'VL-R');
    await voidList(product, ['VL-1', 'VL-2', used.code]).expect(200);

    const tab = (query: Record<string, string>) =>
      t.http().get(`/api/products/${product}/voucher-codes-detailed`).query(query).set(operator).expect(200);
    const voidTab = await tab({ status: 'void' });
    expect(voidTab.body.codes.map((c: { code: string; status: string }) => [c.code, c.status])).toEqual([
      ['VL-2', 'void'],
      ['VL-1', 'void'],
    ]);
    expect(voidTab.body.codes[0].voidedAt).toEqual(expect.any(String));
    expect(voidTab.body.totalCount).toBe(2);
    expect((await tab({ redeemedOnly: 'false' })).body.codes.map((c: { code: string }) => c.code)).toEqual(['VL-3']);
    const redeemedTab = await tab({ redeemedOnly: 'true' });
    expect(redeemedTab.body.codes[0]).toMatchObject({
      code: used.code,
      status: 'redeemed',
      redemption: { refundedAt: expect.any(String) },
    });
    expect((await tab({})).body.totalCount).toBe(4);

    const products = await t.http().get(`/api/products/${product}`).set(operator).expect(200);
    expect(products.body).toMatchObject({ unredeemedCount: 1, redeemedCount: 1, voidCount: 2, totalCount: 4 });
    const stats = await t.http().get('/api/stats/alltime').set(operator).expect(200);
    expect(stats.body.productStats.find((p: { productId: string }) => p.productId === product)).toMatchObject({
      activeCodes: 1,
      redeemedCodes: 1,
      voidCodes: 2,
    });
    expect(stats.body.voidVouchers).toBeGreaterThanOrEqual(2);

    // A void code stays, so the refunded code cannot be uploaded and sold again.
    const [{ id: voidId }] = await t.db.query(`SELECT id FROM voucher_codes WHERE code = 'VL-1'`);
    const del = await t.http().delete(`/api/voucher-codes/${voidId}`).set(operator).expect(409);
    expect(del.body.message).toBe('Void voucher codes cannot be deleted.');
    const all = await t
      .http()
      .delete(`/api/products/${product}/voucher-codes`)
      .set(operator)
      .send({ deleteType: 'all-unredeemed' })
      .expect(200);
    expect(all.body.deletedCount).toBe(1);
    expect(Object.keys(await stateOf(['VL-1', 'VL-2', 'VL-3']))).toEqual(['VL-1', 'VL-2']);
    const upload = await t
      .http()
      .post(`/api/products/${product}/voucher-codes`)
      .set(operator)
      .attach('file', Buffer.from('VL-1\nVL-2\n'), 'again.txt')
      .expect(201);
    expect(upload.body).toMatchObject({ inserted: 0, duplicates: 2 });

    const csvOf = (text: string) => parse(text.replace(/^\ufeff/, ''));
    await addCodes(t.db, product, ['VL-4']);
    const unredeemed = await t
      .http()
      .get('/api/export/unredeemed-vouchers')
      .query({ productId: product, format: 'csv' })
      .set(admin)
      .expect(200);
    expect(csvOf(unredeemed.text).map((r: string[]) => [r[0], r[3]])).toEqual([
      ['Voucher Code', 'Status'],
      ['VL-4', 'Available'],
    ]);
    const codes = await t
      .http()
      .get('/api/export/redeemed-voucher-codes')
      .query({ productId: product, format: 'csv' })
      .set(admin)
      .expect(200);
    const [header, row] = csvOf(codes.text);
    expect(header).toEqual(['Voucher Code', 'Product', 'Redeemed At', 'Status', 'Refunded At']);
    expect([row[0], row[3], row[4]]).toEqual([used.code, 'Refunded', redeemedTab.body.codes[0].redemption.refundedAt]);
    const data = await t
      .http()
      .post('/api/export/selected-redemptions')
      .set(admin)
      .send({ redemptionIds: [used.id], format: 'csv' })
      .expect(200);
    const [dataHeader, dataRow] = csvOf(data.text);
    expect(dataRow[dataHeader.indexOf('Refunded At')]).toBe(redeemedTab.body.codes[0].redemption.refundedAt);
  });

  it('an operator may void, a shop manager may not (and nothing changes)', async () => {
    const product = await createProduct(t, admin);
    const [code] = await addCodes(t.db, product, [randomCode('PERM')]);
    const refused = await voidList(product, [code], shopManager).expect(403);
    expect(refused.body.statusCode).toBe(403);
    expect(await stateOf([code])).toEqual({ [code]: 'available' });
    await voidList(product, [code], operator).expect(200);
    expect(await stateOf([code])).toEqual({ [code]: 'void' });
  });

  it('refuses what is not a list of codes or a CSV/TXT file, writing nothing', async () => {
    const product = await createProduct(t, admin);
    const [code] = await addCodes(t.db, product, [randomCode('REF')]);
    const none = await t.http().post(`/api/products/${product}/voucher-codes/void`).set(operator).send({}).expect(400);
    expect(none.body.message).toBe(
      'Send the voucher codes to void as {"codes": [...]} or as a CSV or TXT file (form field "file").',
    );
    expect((await voidList(product, []).expect(400)).body.message).toBe('Name at least one voucher code to void.');
    expect((await voidList(product, 'ABC').expect(400)).body.message).toBe('codes must be a list of voucher codes');
    const tooMany = Array.from({ length: 1001 }, (_, i) => `TM-${i}`);
    expect((await voidList(product, tooMany).expect(400)).body.message).toBe(
      'At most 1000 voucher codes at once: send a file for more',
    );
    expect((await voidFile(product, `${code}\n`, 'codes.xlsx').expect(400)).body.message).toBe(
      'Only .csv and .txt files are accepted.',
    );
    const invalid = await voidList(product, ['not valid!']).expect(400);
    expect(invalid.body).toMatchObject({ voided: 0, invalid: 1, invalidSamples: ['not valid!'] });
    await voidList('00000000-0000-4000-8000-000000000000', [code]).expect(404);
    expect(await stateOf([code])).toEqual({ [code]: 'available' });
  });

  it('voids a file of 100,000 codes in one request', async () => {
    const product = await createProduct(t, admin);
    await t.db.query(
      countedCodes(
        `INSERT INTO voucher_codes (code, product_id) SELECT 'BULKVOID-' || g, $1 FROM generate_series(1, 100000) g`,
      ),
      [product],
    );
    const lines = Array.from({ length: 100_000 }, (_, i) => `BULKVOID-${i + 1}`).join('\n');
    // Every statement the app sends to PostgreSQL (TypeORM and the COPY go through pg's Client), with its connection.
    const statements = jest.spyOn(Client.prototype, 'query');
    let sent: Array<{ client: unknown; text: string }>;
    try {
      const res = await voidFile(product, lines, 'refunds.txt').expect(200);
      expect(res.body).toMatchObject({ voided: 100_000, unknown: 0, alreadyVoid: 0, refundedAfterRedemption: [] });
      sent = statements.mock.calls.map(([query], i) => ({
        client: statements.mock.contexts[i],
        text: typeof query === 'string' ? query : String((query as { text?: string })?.text ?? ''),
      }));
    } finally {
      statements.mockRestore();
    }
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM voucher_codes WHERE product_id = $1 AND voided_at IS NOT NULL`,
      [product],
    );
    expect(n).toBe(100_000);
    // Set-based: the void's transaction (on the connection that ran the COPY, from its BEGIN to its COMMIT) loads the
    // file with one COPY and voids with one statement, whatever the number of codes; never a statement per code.
    const copy = sent.find((q) => q.text.startsWith('COPY void_codes'));
    const onConnection = sent.filter((q) => q.client === copy?.client).map((q) => q.text.trim().split(/\s/)[0]);
    const begin = onConnection.lastIndexOf('BEGIN', onConnection.indexOf('COPY'));
    expect(onConnection.slice(begin, onConnection.indexOf('COMMIT', begin) + 1)).toEqual([
      'BEGIN',
      'CREATE', // the session's temporary table of codes
      'COPY',
      'ANALYZE',
      'WITH', // the void itself
      'SELECT', // the answer's counts
      'INSERT', // the batch row
      'COMMIT',
    ]);
  }, 120_000);
});
