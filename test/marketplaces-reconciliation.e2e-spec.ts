import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createProduct } from './helpers/admin-data';
import { csvRows } from './helpers/exports';
import { eventually, redeemNew } from './helpers/redemptions';
import { signed, startMarketplace, TestMarketplace } from './helpers/marketplace';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';
import { dayIn } from '../backend/src/common/utils/day';

const HEADER = [
  'Redemption ID',
  'Voucher Code',
  'External Ref',
  'Redeemed At',
  'Report Status',
  'Attempts',
  'Acked At',
  'Last Error',
  'Refund Report',
];

/**
 * The day's redemptions of a marketplace connection with their report status as CSV (docs/product.md §24.10), through
 * the real API against a real marketplace server on loopback: acked, pending (the marketplace refusing) and refunded
 * rows, the empty day's 404, bad input, the audit row.
 */
describe('Marketplace connections: the reconciliation file', () => {
  let t: TestApp;
  let admin: { Authorization: string };
  let marketplace: TestMarketplace;

  beforeAll(async () => {
    t = await startTestApp({
      ...RECEIVERS_ON_LOOPBACK,
      GEO_BLOCKED_COUNTRIES: '',
      // A refused report waits a minute before its next attempt: it stays pending while the test reads it.
      MARKETPLACE_BACKOFF_MS: '60000',
    });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    await marketplace?.close();
    await t?.close();
  });

  it("lists the day's redemptions with their report and refund status, streamed as CSV; another day is a 404", async () => {
    // The marketplace refuses the reports of the codes made with the prefix RCP.
    marketplace = await startMarketplace((call) =>
      call.path.endsWith('/redemptions') && String(call.json.code).startsWith('RCP')
        ? { status: 503, body: { message: 'busy' } }
        : undefined,
    );
    const product = await createProduct(t, admin);
    const ref = 'SKU-RECON';
    const created = await t
      .http()
      .post('/api/marketplaces')
      .set(admin)
      .send({ name: 'Partner One', baseUrl: marketplace.baseUrl, products: [{ productId: product, externalRef: ref }] })
      .expect(201);
    const id = created.body.id as string;
    marketplace.useSecret(created.body.secret);

    const acked = await redeemNew(t, product, {}, 'RCA');
    const refunded = await redeemNew(t, product, {}, 'RCR');
    await eventually(async () => marketplace.callsTo('/redemptions').length === 2, 10_000, 'two reports acked');
    // The marketplace refunds one (its refund is recorded, not reported back).
    const event = JSON.stringify({ id: 'evt-rc', type: 'voucher.refunded', externalRef: ref, codes: [refunded.code] });
    await t
      .http()
      .post(`/api/marketplaces/${id}/events`)
      .set(signed(created.body.secret, event))
      .send(event)
      .expect(200);
    const pending = await redeemNew(t, product, {}, 'RCP');
    await eventually(
      async () => marketplace.callsTo('/redemptions').some((c) => c.json.code === pending.code),
      10_000,
      'the refused report',
    );
    await eventually(
      async () =>
        (await t.db.query(`SELECT attempts FROM marketplace_reports WHERE redemption_id = $1`, [pending.id]))[0]
          ?.attempts === 1,
      10_000,
      'the refused attempt recorded',
    );

    const today = dayIn(t.config.timeZone, new Date());
    const res = await t.http().get(`/api/marketplaces/${id}/reconciliation`).set(admin).buffer(true);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe(`attachment; filename="marketplace-Partner-One-${today}.csv"`);
    const [header, ...rows] = csvRows(res.text);
    expect(header).toEqual(HEADER);
    const byId = new Map(rows.map((r) => [r[0], r]));
    expect(rows.map((r) => r[0]).sort()).toEqual([acked.id, refunded.id, pending.id].sort());
    expect(byId.get(acked.id)).toEqual([
      acked.id,
      acked.code,
      ref,
      expect.any(String),
      'acked',
      '1',
      expect.any(String),
      '',
      '',
    ]);
    expect(byId.get(refunded.id)!.slice(4)).toEqual(['acked', '1', expect.any(String), '', 'acked']);
    expect(byId.get(pending.id)!.slice(4)).toEqual(['pending', '1', '', 'The marketplace answered 503', '']);
    // Oldest first, ISO 8601.
    const times = rows.map((r) => r[3]);
    expect(times.every((s) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/.test(s))).toBe(true);
    expect([...times].sort()).toEqual(times);
    const [audit] = await t.db.query(
      `SELECT success, details FROM security_audit_log WHERE action = 'export.marketplace-reconciliation'
        AND resource_id = $1 ORDER BY created_at DESC LIMIT 1`,
      [id],
    );
    expect(audit).toEqual({ success: true, details: expect.objectContaining({ day: today, rows: 3 }) });

    const empty = await t.http().get(`/api/marketplaces/${id}/reconciliation?date=2020-01-01`).set(admin);
    expect([empty.status, empty.body.message]).toEqual([
      404,
      'No redemptions of this connection were reported on 2020-01-01.',
    ]);
    const bad = await t.http().get(`/api/marketplaces/${id}/reconciliation?date=yesterday`).set(admin);
    expect([bad.status, bad.body.message]).toEqual([400, 'date must be a day as YYYY-MM-DD.']);
    const unknown = await t
      .http()
      .get(`/api/marketplaces/00000000-0000-4000-8000-000000000000/reconciliation`)
      .set(admin);
    expect([unknown.status, unknown.body.message]).toEqual([404, 'Marketplace connection not found.']);
  });
});
