import { parse } from 'csv-parse/sync';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TestApp } from './helpers/app';
import { createProduct, redeem } from './helpers/admin-data';
import { bearer, createAdminUser, issueToken } from './helpers/auth';
import { addCodes, randomCode } from './helpers/factories';

/*
 * docs/product.md §20.1 upload batches: every upload and every void file is a batch; `GET /api/products/{id}/batches` answers
 * live counts kept by the counters, `GET /api/export/batch/{id}` each code of a batch with its state and times.
 */

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const BOM = '\ufeff';
const HEADER = ['Voucher Code', 'Status', 'Redeemed At', 'Exported At', 'Refunded At'];

interface Batch {
  id: string;
  kind: string;
  fileName: string | null;
  uploadedBy: string | null;
  uploadedAt: string;
  inserted: number;
  duplicates: number;
  invalid: number;
  refunded: number;
  unknown: number;
  counts: { uploaded: number; redeemed: number; unredeemed: number; void: number; exported: number } | null;
}

function csvRows(text: string): string[][] {
  expect(text.startsWith(BOM)).toBe(true);
  return parse(text.slice(BOM.length), { relax_column_count: false });
}

describe('upload batches (docs/product.md §20.1)', () => {
  let t: TestApp;
  let admin: { id: string; username: string };
  let auth: { Authorization: string };
  let product: string;

  const upload = (productId: string, content: string, name: string) =>
    t.http().post(`/api/products/${productId}/voucher-codes`).set(auth).attach('file', Buffer.from(content), name);
  const batchesOf = async (productId: string): Promise<Batch[]> =>
    (await t.http().get(`/api/products/${productId}/batches`).set(auth).expect(200)).body;
  const batchCsv = (id: string) => t.http().get(`/api/export/batch/${id}`).query({ format: 'csv' }).set(auth);

  /** The database's view of a batch's codes, as the reconciliation must show them: in insertion order. */
  const databaseRows = async (where: string, param: string): Promise<string[][]> => {
    const rows: Array<{
      code: string;
      status: string;
      redeemed_at: Date | null;
      exported_at: Date | null;
      refunded_at: Date | null;
    }> = await t.db.query(
      `SELECT v.code, CASE WHEN v.voided_at IS NOT NULL THEN 'Void' WHEN r.refunded_at IS NOT NULL THEN 'Refunded'
                              WHEN v.is_redeemed THEN 'Redeemed' ELSE 'Available' END AS status,
                v.redeemed_at, r.exported_at, r.refunded_at
           FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id WHERE ${where} ORDER BY v.seq`,
      [param],
    );
    const iso = (d: Date | null) => (d ? d.toISOString() : '');
    return rows.map((r) => [r.code, r.status, iso(r.redeemed_at), iso(r.exported_at), iso(r.refunded_at)]);
  };

  beforeAll(async () => {
    t = await startTestApp();
    admin = await createAdminUser(t, { role: 'admin' });
    auth = bearer((await issueToken(t, admin.id)).token);
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date('2026-03-05T10:00:00Z'));
    product = await createProduct(t, auth);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  it('counts two uploads exactly after redemptions, a void file and exports, and their files match the database row for row', async () => {
    const a = Array.from({ length: 5 }, () => randomCode('BA'));
    const b = Array.from({ length: 4 }, () => randomCode('BB'));
    // A code that came by no upload: the product's "before batches" batch.
    const [direct] = await addCodes(t.db, product, [randomCode('BD')]);

    const first = await upload(
      product,
      ['code', ...a, a[0].toLowerCase(), 'not a code!'].join('\n'),
      'first.csv',
    ).expect(201);
    expect(first.body).toMatchObject({ inserted: 5, duplicates: 1, invalid: 1, batchId: expect.stringMatching(UUID) });
    const second = await upload(product, [...b, a[1]].join('\n'), 'second.txt').expect(201);
    expect(second.body).toMatchObject({ inserted: 4, duplicates: 1, invalid: 0, batchId: expect.stringMatching(UUID) });

    // Redemptions: two of the first upload, one of the second.
    const redeemedA0 = await redeem(t, a[0]);
    await redeem(t, a[1]);
    const redeemedB0 = await redeem(t, b[0]);
    // A void file: an available code of the first upload (voided), a redeemed one of the second (refunded), an
    // unknown code, an invalid line.
    const voided = await t
      .http()
      .post(`/api/products/${product}/voucher-codes/void`)
      .set(auth)
      .attach('file', Buffer.from([a[4], b[0], 'NEVER-UPLOADED-1', 'bad code!'].join('\n')), 'refunds.txt')
      .expect(200);
    expect(voided.body).toMatchObject({
      voided: 1,
      unknown: 1,
      alreadyVoid: 0,
      invalid: 1,
      batchId: expect.stringMatching(UUID),
    });
    // Exports: a[0]'s and b[0]'s redemptions, then a[0]'s again (exported once, counted once).
    await t
      .http()
      .post('/api/export/selected-redemptions')
      .set(auth)
      .send({ redemptionIds: [redeemedA0, redeemedB0], format: 'csv' })
      .expect(200);
    await t
      .http()
      .post('/api/export/selected-redemptions')
      .set(auth)
      .send({ redemptionIds: [redeemedA0], format: 'txt' })
      .expect(200);

    const batches = await batchesOf(product);
    expect(batches.map((x) => x.id)).toEqual([voided.body.batchId, second.body.batchId, first.body.batchId, product]);
    const [voidBatch, secondBatch, firstBatch, before] = batches;
    expect(firstBatch).toEqual({
      id: first.body.batchId,
      kind: 'upload',
      fileName: 'first.csv',
      uploadedBy: admin.username,
      uploadedAt: expect.any(String),
      inserted: 5,
      duplicates: 1,
      invalid: 1,
      refunded: 0,
      unknown: 0,
      failure: null,
      counts: { uploaded: 5, redeemed: 2, unredeemed: 2, void: 1, exported: 1 },
    });
    expect(secondBatch).toMatchObject({
      kind: 'upload',
      fileName: 'second.txt',
      uploadedBy: admin.username,
      inserted: 4,
      duplicates: 1,
      invalid: 0,
      counts: { uploaded: 4, redeemed: 1, unredeemed: 3, void: 0, exported: 1 },
    });
    expect(voidBatch).toMatchObject({
      kind: 'void',
      fileName: 'refunds.txt',
      uploadedBy: admin.username,
      inserted: 1,
      duplicates: 0,
      invalid: 1,
      refunded: 1,
      unknown: 1,
      counts: null,
    });
    expect(before).toMatchObject({
      kind: 'before-batches',
      fileName: null,
      uploadedBy: null,
      counts: { uploaded: 1, redeemed: 0, unredeemed: 1, void: 0, exported: 0 },
    });
    expect(new Date(firstBatch.uploadedAt).getTime()).toBeLessThanOrEqual(new Date(secondBatch.uploadedAt).getTime());

    // Each batch's reconciliation is the database's, row for row.
    for (const [batch, where] of [
      [firstBatch, 'v.batch_id = $1'],
      [secondBatch, 'v.batch_id = $1'],
      [voidBatch, 'v.void_batch_id = $1'],
      [before, 'v.product_id = $1 AND v.batch_id IS NULL'],
    ] as const) {
      const res = await batchCsv(batch.id).expect(200);
      expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
      expect(res.headers['content-disposition']).toBe('attachment; filename="batch-2026-03-05.csv"');
      const [header, ...rows] = csvRows(res.text);
      expect(header).toEqual(HEADER);
      expect([batch.kind, rows]).toEqual([batch.kind, await databaseRows(where, batch.id)]);
    }
    // What the rows say, spelled out for the first upload (a[0] exported, a[1] redeemed, a[4] void, the rest available).
    const firstRows = csvRows((await batchCsv(firstBatch.id).expect(200)).text).slice(1);
    const state = Object.fromEntries(firstRows.map((r) => [r[0], [r[1], !!r[2], !!r[3], !!r[4]]]));
    expect(state).toEqual({
      [a[0]]: ['Redeemed', true, true, false],
      [a[1]]: ['Redeemed', true, false, false],
      [a[2]]: ['Available', false, false, false],
      [a[3]]: ['Available', false, false, false],
      [a[4]]: ['Void', false, false, false],
    });
    expect(firstRows.map((r) => r[0])).toEqual([...a].sort());
    // The void file's: the code it voided and the redeemed one it refunded.
    const voidRows = csvRows((await batchCsv(voidBatch.id).expect(200)).text).slice(1);
    expect(voidRows.map((r) => [r[0], r[1], !!r[4]]).sort()).toEqual(
      [
        [a[4], 'Void', false],
        [b[0], 'Refunded', true],
      ].sort(),
    );
    expect(
      csvRows((await batchCsv(before.id).expect(200)).text)
        .slice(1)
        .map((r) => r[0]),
    ).toEqual([direct]);
    // TXT: the codes alone.
    const txt = await t
      .http()
      .get(`/api/export/batch/${secondBatch.id}`)
      .query({ format: 'txt' })
      .set(auth)
      .expect(200);
    expect(txt.text).toBe(
      [...b]
        .sort()
        .map((c) => `${c}\r\n`)
        .join(''),
    );

    // A deleted available code leaves its batch; the file and the counts follow.
    const [{ id: gone }] = await t.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [a[2]]);
    await t.http().delete(`/api/voucher-codes/${gone}`).set(auth).expect(200);
    const after = (await batchesOf(product)).find((x) => x.id === firstBatch.id)!;
    expect(after.counts).toEqual({ uploaded: 4, redeemed: 2, unredeemed: 1, void: 1, exported: 1 });
    expect(after.inserted).toBe(5);
    expect(csvRows((await batchCsv(firstBatch.id).expect(200)).text).slice(1)).toEqual(
      await databaseRows('v.batch_id = $1', firstBatch.id),
    );

    // Exporting is audited like every export.
    const [audited] = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'export.batch' AND details ->> 'batchId' = $1 ORDER BY created_at LIMIT 1`,
      [firstBatch.id],
    );
    expect(audited).toEqual({
      success: true,
      details: expect.objectContaining({ productId: product, batchKind: 'upload', format: 'csv', rows: 5 }),
    });
  });

  it('reads each of two uploads that ran at the same time back alone', async () => {
    const other = await createProduct(t, auth);
    const files = [0, 1].map((i) =>
      Array.from({ length: 2000 }, (_, n) => `SIM${i}-${String(n).padStart(5, '0')}-${randomCode('X').slice(2)}`),
    );
    const answers = await Promise.all(
      files.map((codes, i) => upload(other, codes.join('\n'), `same-time-${i}.txt`).expect(201)),
    );
    for (const [i, res] of answers.entries()) {
      expect(res.body.inserted).toBe(2000);
      const txt = await t
        .http()
        .get(`/api/export/batch/${res.body.batchId}`)
        .query({ format: 'txt' })
        .set(auth)
        .expect(200);
      expect(txt.text.trimEnd().split('\r\n')).toEqual([...files[i]].sort());
    }
    const listed = await batchesOf(other);
    expect(listed.map((x) => [x.fileName, x.counts?.uploaded]).sort()).toEqual([
      ['same-time-0.txt', 2000],
      ['same-time-1.txt', 2000],
    ]);
  });

  it('lists no "before batches" batch for a product whose codes all came by upload, and a new product has none', async () => {
    const fresh = await createProduct(t, auth);
    expect(await batchesOf(fresh)).toEqual([]);
    const res = await upload(fresh, `${randomCode('NB')}\n`, 'only.txt').expect(201);
    expect((await batchesOf(fresh)).map((x) => x.id)).toEqual([res.body.batchId]);
    // Its "before batches" batch exists (id = product id): empty, not listed, no file.
    await batchCsv(fresh).expect(404, {
      statusCode: 404,
      message: 'No voucher codes in this batch.',
      error: 'Not Found',
    });
  });

  it('answers 404 for an unknown product or batch and 400 for a malformed id', async () => {
    const unknown = '00000000-0000-4000-8000-000000000000';
    expect((await t.http().get(`/api/products/${unknown}/batches`).set(auth).expect(404)).body.message).toBe(
      'Product not found.',
    );
    expect((await t.http().get('/api/products/nope/batches').set(auth).expect(400)).body.message).toBe(
      'Invalid product ID.',
    );
    expect((await batchCsv(unknown).expect(404)).body.message).toBe('Batch not found.');
    expect((await t.http().get('/api/export/batch/nope').set(auth).expect(400)).body.message).toBe('Invalid batch ID.');
    expect(
      (await t.http().get(`/api/export/batch/${product}`).query({ format: 'xls' }).set(auth).expect(400)).body.message,
    ).toBe('format must be csv or txt');
  });

  it('refuses a shop-manager both (403), lets an operator list batches but not take the codes away', async () => {
    // Its own product and upload: the test reads no batch another test made (any order, --randomize).
    const own = await createProduct(t, auth);
    const uploaded = await upload(own, `${randomCode('RB')}\n`, 'roles.txt').expect(201);
    const batch = { id: uploaded.body.batchId as string };
    const shopManager = bearer((await issueToken(t, (await createAdminUser(t, { role: 'shop-manager' })).id)).token);
    const operator = bearer((await issueToken(t, (await createAdminUser(t, { role: 'operator' })).id)).token);
    await t.http().get(`/api/products/${own}/batches`).set(shopManager).expect(403);
    await t.http().get(`/api/export/batch/${batch.id}`).query({ format: 'csv' }).set(shopManager).expect(403);
    expect((await t.http().get(`/api/products/${own}/batches`).set(operator).expect(200)).body).toEqual(
      await batchesOf(own),
    );
    await t.http().get(`/api/export/batch/${batch.id}`).query({ format: 'csv' }).set(operator).expect(403);
  });
});
