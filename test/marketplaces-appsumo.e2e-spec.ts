import { randomUUID } from 'crypto';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createProduct } from './helpers/admin-data';
import { redeemBody } from './helpers/factories';
import { signed } from './helpers/marketplace';
import { randomHex } from './helpers/seed';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';
import { appsumoSignature } from '../backend/src/modules/marketplace/appsumo-adapter';

const INVALID_SIGNATURE = 'Invalid signature';
const ONLY_WEBHOOKS =
  'An AppSumo connection only receives webhooks: checkAtRedeem, reportRedemptions and pullIntervalSeconds stay off.';

/** A plan id as AppSumo writes them (64 hex digits). */
const planId = () => randomHex(32);
/** A license key as AppSumo writes them (a UUID), from the file's seed (docs/testing.md "Random data"). */
const seededUuid = () => randomHex(16).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');

/**
 * The AppSumo adapter (docs/product.md §24.4) through the real inbound route: webhooks in the shape of AppSumo's
 * licensing documentation, signed as AppSumo signs them (HMAC-SHA256 of "<X-Appsumo-Timestamp><raw body>" under the
 * partner's API key, the timestamp in milliseconds): purchase brings the license key in as a code, deactivate refunds
 * it, a test probe and the other events are answered and change nothing; forged and stale signatures are refused.
 */
describe('Marketplace connections: AppSumo', () => {
  let t: TestApp;
  let admin: { Authorization: string };

  beforeAll(async () => {
    t = await startTestApp({ ...RECEIVERS_ON_LOOPBACK, GEO_BLOCKED_COUNTRIES: '' });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterEach(async () => {
    for (const m of (await t.http().get('/api/marketplaces').set(admin)).body) {
      await t.http().delete(`/api/marketplaces/${m.id}`).set(admin);
    }
  });
  afterAll(() => t?.close());

  const connect = async (plans: string[] = [planId()]) => {
    const apiKey = randomUUID();
    const products = [];
    for (const plan of plans) products.push({ productId: await createProduct(t, admin), externalRef: plan });
    const res = await t
      .http()
      .post('/api/marketplaces')
      .set(admin)
      .send({ name: 'AppSumo', adapter: 'appsumo', apiKey, products });
    expect(res.status).toBe(201);
    return { id: res.body.id as string, apiKey, plan: plans[0], product: products[0].productId, body: res.body };
  };
  /** An AppSumo webhook body, keys in the order of AppSumo's examples. */
  const webhook = (event: string, licenseKey: string, plan: string | undefined, extra: object = {}) => ({
    license_key: licenseKey,
    ...(plan ? { plan_id: plan } : {}),
    event,
    license_status: event === 'deactivate' ? 'deactivated' : 'inactive',
    event_timestamp: Date.now(),
    created_at: Math.floor(Date.now() / 1000),
    test: false,
    ...extra,
  });
  const send = (id: string, apiKey: string, payload: object, atMs = Date.now()) => {
    const body = JSON.stringify(payload);
    const ts = String(atMs);
    return t
      .http()
      .post(`/api/marketplaces/${id}/events`)
      .set({
        'Content-Type': 'application/json',
        'X-Appsumo-Timestamp': ts,
        'X-Appsumo-Signature': appsumoSignature(apiKey, ts, body),
      })
      .send(body);
  };
  const state = async (code: string) => {
    const [row] = await t.db.query(
      `SELECT v.product_id, v.is_redeemed, v.voided_at IS NOT NULL AS void, r.refunded_at IS NOT NULL AS refunded
         FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id WHERE v.code = $1`,
      [code],
    );
    if (!row) return 'absent';
    return row.void ? 'void' : row.refunded ? 'refunded' : row.is_redeemed ? 'redeemed' : `available:${row.product_id}`;
  };

  it('connects with the partner API key, never called: the switches that call it stay off, bad input refused', async () => {
    const { id, apiKey, body } = await connect();
    expect(body).toMatchObject({
      adapter: 'appsumo',
      baseUrl: 'https://api.licensing.appsumo.com',
      checkAtRedeem: false,
      reportRedemptions: false,
      pullIntervalSeconds: 0,
      secret: apiKey,
    });
    const [row] = await t.db.query(`SELECT secret_ciphertext FROM marketplace_connections WHERE id = $1`, [id]);
    expect(row.secret_ciphertext.toString('latin1')).not.toContain(apiKey);
    const list = (await t.http().get('/api/marketplaces').set(admin)).body;
    expect(JSON.stringify(list)).not.toContain(apiKey);

    const before = (await t.db.query(`SELECT count(*)::int AS n FROM marketplace_connections`))[0].n;
    const refused = [
      [{ name: 'AppSumo', adapter: 'appsumo' }, 'The API key is required.'],
      [{ name: 'AppSumo', adapter: 'appsumo', apiKey: 'k', checkAtRedeem: true }, ONLY_WEBHOOKS],
      [{ name: 'AppSumo', adapter: 'appsumo', apiKey: 'k', pullIntervalSeconds: 60 }, ONLY_WEBHOOKS],
      [{ name: 'P', baseUrl: 'http://127.0.0.1:9/mp', apiKey: 'k' }, 'Only an AppSumo connection takes an API key.'],
      [{ name: 'P', adapter: 'ebay', apiKey: 'k' }, 'adapter must be one of: generic, appsumo.'],
      [{ name: 'P' }, 'The base URL is required.'],
    ] as const;
    for (const [dto, message] of refused) {
      const res = await t.http().post('/api/marketplaces').set(admin).send(dto);
      expect([res.status, res.body.message]).toEqual([400, message]);
    }
    const patched = await t.http().patch(`/api/marketplaces/${id}`).set(admin).send({ reportRedemptions: true });
    expect([patched.status, patched.body.message]).toEqual([400, ONLY_WEBHOOKS]);
    expect((await t.db.query(`SELECT count(*)::int AS n FROM marketplace_connections`))[0].n).toBe(before);
  });

  it('purchase brings the license key in as a code of the plan; a replay adds nothing; the customer redeems it', async () => {
    const { id, apiKey, plan, product } = await connect();
    const licenseKey = seededUuid();
    const code = licenseKey.toUpperCase();
    const payload = webhook('purchase', licenseKey, plan);
    const first = await send(id, apiKey, payload);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ success: true, event: 'purchase', applied: 1, duplicates: 0, unknown: 0 });
    expect(await state(code)).toBe(`available:${product}`);
    const replay = await send(id, apiKey, payload);
    expect(replay.body).toEqual({ success: true, event: 'purchase', applied: 0, duplicates: 1, unknown: 0 });
    expect((await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.codesReceived).toBe(1);

    const redeemed = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: licenseKey }));
    expect(redeemed.status).toBe(201);
    expect(await state(code)).toBe('redeemed');
  });

  it('a webhook naming no plan goes to the only product; deactivate voids an unused key and refunds a redeemed one', async () => {
    const { id, apiKey, plan, product } = await connect();
    const [unused, used] = [seededUuid(), seededUuid()];
    expect((await send(id, apiKey, webhook('purchase', unused, undefined))).body.applied).toBe(1);
    expect((await send(id, apiKey, webhook('purchase', used, plan))).body.applied).toBe(1);
    expect(await state(unused.toUpperCase())).toBe(`available:${product}`);
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: used }))
      .expect(201);

    // activate, upgrade, downgrade: answered, nothing changes.
    const activate = await send(id, apiKey, webhook('activate', used, plan, { license_status: 'active' }));
    expect(activate.body).toEqual({ success: true, event: 'activate', applied: 0, duplicates: 0, unknown: 0 });
    expect(await state(used.toUpperCase())).toBe('redeemed');

    for (const key of [unused, used]) {
      const res = await send(id, apiKey, webhook('deactivate', key, plan));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ success: true, event: 'deactivate', applied: 1, duplicates: 0, unknown: 0 });
    }
    expect([await state(unused.toUpperCase()), await state(used.toUpperCase())]).toEqual(['void', 'refunded']);
    const again = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: unused }));
    expect(again.status).toBe(410);
    expect((await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.refundsApplied).toBe(2);
  });

  it('a test probe is answered success with nothing applied or recorded', async () => {
    const { id, apiKey, plan } = await connect();
    const probe = webhook('purchase', '00000000-aaaa-1111-bbbb-abcdef012345', plan, { test: true });
    const res = await send(id, apiKey, probe);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true, event: 'purchase', applied: 0, duplicates: 0, unknown: 0 });
    expect(await state('00000000-AAAA-1111-BBBB-ABCDEF012345')).toBe('absent');
    const events = await t.db.query(`SELECT count(*)::int AS n FROM marketplace_events WHERE connection_id = $1`, [id]);
    expect(events[0].n).toBe(0);
  });

  it('refuses a forged, stale, missing or generic signature and a body it cannot read, changing nothing', async () => {
    const { id, apiKey, plan } = await connect();
    const licenseKey = seededUuid();
    const payload = webhook('purchase', licenseKey, plan);
    const body = JSON.stringify(payload);
    const forged = await send(id, randomUUID(), payload);
    const stale = await send(id, apiKey, payload, Date.now() - 301_000);
    const future = await send(id, apiKey, payload, Date.now() + 301_000);
    const missing = await t
      .http()
      .post(`/api/marketplaces/${id}/events`)
      .set('Content-Type', 'application/json')
      .send(body);
    // The generic protocol's headers under the same key do not sign an AppSumo connection's request.
    const generic = await t.http().post(`/api/marketplaces/${id}/events`).set(signed(apiKey, body)).send(body);
    const ts = String(Date.now());
    const altered = await t
      .http()
      .post(`/api/marketplaces/${id}/events`)
      .set({
        'Content-Type': 'application/json',
        'X-Appsumo-Timestamp': ts,
        'X-Appsumo-Signature': appsumoSignature(apiKey, ts, body),
      })
      .send(body.replace('"purchase"', '"purchase" '));
    for (const res of [forged, stale, future, missing, generic, altered]) {
      expect([res.status, res.body.message]).toEqual([401, INVALID_SIGNATURE]);
    }
    const unreadable = await send(id, apiKey, { event: 'purchase' });
    expect([unreadable.status, unreadable.body.message]).toEqual([
      400,
      'An AppSumo webhook carries an event and a license_key.',
    ]);
    const unknownPlan = await send(id, apiKey, webhook('purchase', licenseKey, 'not-a-plan-of-this-connection'));
    expect(unknownPlan.status).toBe(422);
    expect(await state(licenseKey.toUpperCase())).toBe('absent');
    // Nothing was recorded: the same webhook, well signed, applies.
    expect((await send(id, apiKey, payload)).body.applied).toBe(1);
  });
});
