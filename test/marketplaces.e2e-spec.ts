import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createProduct } from './helpers/admin-data';
import { addCodes, randomCode, redeemBody } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';
import { signed, startMarketplace, TestMarketplace } from './helpers/marketplace';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';

const INVALID_SIGNATURE = 'Invalid signature';

/**
 * Marketplace connections (DECISIONS §17) through the real API and job queue, against a real marketplace server on
 * 127.0.0.1 (test/helpers/marketplace.ts): the admin API and its SSRF guard, signed inbound events (forged, stale,
 * replayed), the codes they bring and the refunds they apply.
 */
describe('Marketplace connections', () => {
  let t: TestApp;
  let admin: { Authorization: string };
  const marketplaces: TestMarketplace[] = [];

  beforeAll(async () => {
    t = await startTestApp({
      ...RECEIVERS_ON_LOOPBACK,
      GEO_BLOCKED_COUNTRIES: '',
      MARKETPLACE_BACKOFF_MS: '50',
      LOG_LEVEL: 'error',
    });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterEach(async () => {
    for (const m of (await t.http().get('/api/marketplaces').set(admin)).body)
      await t.http().delete(`/api/marketplaces/${m.id}`).set(admin);
    for (const m of marketplaces.splice(0)) await m.close();
  });
  afterAll(() => t?.close());

  /** A marketplace server, a fresh product it serves as `ref`, and the connection (its secret given to the server). */
  const connect = async (settings: Record<string, unknown> = {}, ref = `SKU-${randomCode('R')}`) => {
    const marketplace = await startMarketplace();
    marketplaces.push(marketplace);
    const product = await createProduct(t, admin);
    const res = await t
      .http()
      .post('/api/marketplaces')
      .set(admin)
      .send({
        name: 'Partner',
        baseUrl: marketplace.baseUrl,
        products: [{ productId: product, externalRef: ref }],
        ...settings,
      });
    expect(res.status).toBe(201);
    marketplace.useSecret(res.body.secret);
    return { marketplace, product, ref, id: res.body.id as string, secret: res.body.secret as string };
  };
  const push = (id: string, secret: string, event: unknown, at?: number) => {
    const body = JSON.stringify(event);
    return t
      .http()
      .post(`/api/marketplaces/${id}/events`)
      .set(signed(secret, body, at))
      .send(body);
  };
  const codeStates = async (codes: string[]) =>
    (
      await t.db.query(
        `SELECT v.code, v.product_id, v.batch_id, v.is_redeemed, v.voided_at IS NOT NULL AS void,
                r.refunded_at IS NOT NULL AS refunded
           FROM voucher_codes v LEFT JOIN redemptions r ON r.voucher_code_id = v.id WHERE v.code = ANY($1) ORDER BY v.code`,
        [codes],
      )
    ).map(
      (r: {
        code: string;
        product_id: string;
        batch_id: string;
        is_redeemed: boolean;
        void: boolean;
        refunded: boolean;
      }) => ({
        code: r.code,
        product: r.product_id,
        batch: r.batch_id,
        state: r.void ? 'void' : r.refunded ? 'refunded' : r.is_redeemed ? 'redeemed' : 'available',
      }),
    );
  const audit = async (action: string, resourceId: string) =>
    (
      await t.db.query(`SELECT details FROM security_audit_log WHERE action = $1 AND resource_id = $2`, [
        action,
        resourceId,
      ])
    ).length;

  describe('admin API', () => {
    it('answers the secret once, lists without it, changes and deletes the connection, each audited', async () => {
      const { id, secret, product, ref, marketplace } = await connect({ checkAtRedeem: true, onUnreachable: 'refuse' });
      expect(secret).toMatch(/^mksec_[A-Za-z0-9_-]{43}$/);
      const list = (await t.http().get('/api/marketplaces').set(admin).expect(200)).body;
      expect(list).toEqual([
        expect.objectContaining({
          id,
          name: 'Partner',
          baseUrl: marketplace.baseUrl,
          products: [{ productId: product, externalRef: ref }],
          checkAtRedeem: true,
          reportRedemptions: true,
          onUnreachable: 'refuse',
          pullIntervalSeconds: 0,
        }),
      ]);
      expect(JSON.stringify(list)).not.toContain(secret);
      // Stored sealed: the secret's bytes are nowhere in the row.
      const [row] = await t.db.query(`SELECT secret_ciphertext FROM marketplace_connections WHERE id = $1`, [id]);
      expect(row.secret_ciphertext.toString('latin1')).not.toContain(secret.slice(6, 30));

      const patched = await t
        .http()
        .patch(`/api/marketplaces/${id}`)
        .set(admin)
        .send({ name: 'Groupon', checkAtRedeem: false });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Groupon', checkAtRedeem: false, onUnreachable: 'refuse' });
      expect(patched.body.secret).toBeUndefined();

      await t.http().delete(`/api/marketplaces/${id}`).set(admin).expect(200);
      await t.http().get(`/api/marketplaces/${id}/status`).set(admin).expect(404);
      expect([
        await audit('marketplace.create', id),
        await audit('marketplace.update', id),
        await audit('marketplace.delete', id),
      ]).toEqual([1, 1, 1]);
    });

    it('refuses a base URL the SSRF guard refuses, a product served elsewhere, and bad input, writing nothing', async () => {
      const { product } = await connect();
      const before = (await t.db.query(`SELECT count(*)::int AS n FROM marketplace_connections`))[0].n;
      const post = (body: Record<string, unknown>) =>
        t
          .http()
          .post('/api/marketplaces')
          .set(admin)
          .send({ name: 'X', ...body });
      const privateUrl = await post({ baseUrl: 'http://10.1.2.3/mp' });
      expect(privateUrl.status).toBe(400);
      expect(privateUrl.body.message).toBe(
        'The marketplace base URL must point to a public address: 10.1.2.3 is a private, loopback or link-local address.',
      );
      const loopbackHttps = await post({ baseUrl: 'https://127.0.0.2/mp' });
      expect(loopbackHttps.status).toBe(400);
      expect(loopbackHttps.body.message).toContain('must point to a public address');
      const taken = await post({
        baseUrl: 'http://127.0.0.1:9/mp',
        products: [{ productId: product, externalRef: 'OTHER' }],
      });
      expect(taken.status).toBe(409);
      expect(taken.body.message).toBe('A product is already served by a marketplace connection.');
      const badPolicy = await post({ baseUrl: 'http://127.0.0.1:9/mp', onUnreachable: 'maybe' });
      expect(badPolicy.status).toBe(400);
      expect(badPolicy.body.message).toBe("onUnreachable must be 'accept' or 'refuse'.");
      expect((await t.db.query(`SELECT count(*)::int AS n FROM marketplace_connections`))[0].n).toBe(before);
    });
  });

  describe('inbound events', () => {
    it('voucher.created adds the codes to the mapped product, one batch per connection and day; a replay adds nothing', async () => {
      const { id, secret, product, ref } = await connect();
      const codes = [randomCode('MKA'), randomCode('MKA')];
      const first = await push(id, secret, { id: 'evt-1', type: 'voucher.created', externalRef: ref, codes });
      expect(first.status).toBe(200);
      expect(first.body).toEqual({ applied: 2, duplicates: 0, unknown: 0 });
      const more = [randomCode('MKB'), codes[0]];
      const second = await push(id, secret, { id: 'evt-2', type: 'voucher.created', externalRef: ref, codes: more });
      expect(second.body).toEqual({ applied: 1, duplicates: 1, unknown: 0 });
      const replay = await push(id, secret, { id: 'evt-2', type: 'voucher.created', externalRef: ref, codes: more });
      expect(replay.status).toBe(200);
      expect(replay.body).toEqual({ applied: 0, duplicates: 2, unknown: 0 });

      const states = await codeStates([...codes, more[0]]);
      expect(states.map((s: { state: string; product: string; batch: string }) => [s.product, s.state])).toEqual(
        states.map(() => [product, 'available']),
      );
      expect(new Set(states.map((s: { state: string; product: string; batch: string }) => s.batch)).size).toBe(1);
      const batches = (await t.http().get(`/api/products/${product}/batches`).set(admin).expect(200)).body;
      expect(batches).toEqual([expect.objectContaining({ id: states[0].batch, inserted: 3, duplicates: 1 })]);
      const status = (await t.http().get(`/api/marketplaces/${id}/status`).set(admin).expect(200)).body;
      expect(status).toMatchObject({ codesReceived: 3, redeemed: 0, refundsApplied: 0 });
      expect(status.lastEventAt).not.toBeNull();
    });

    it('refuses a forged, missing or stale signature (401) and an unknown externalRef (422), changing nothing', async () => {
      const { id, secret, ref } = await connect();
      const code = randomCode('MKF');
      const event = { id: 'evt-f', type: 'voucher.created', externalRef: ref, codes: [code] };
      const body = JSON.stringify(event);
      const forged = await t
        .http()
        .post(`/api/marketplaces/${id}/events`)
        .set(signed('not-the-secret', body))
        .send(body);
      const stale = await push(id, secret, event, Math.floor(Date.now() / 1000) - 301);
      const missing = await t
        .http()
        .post(`/api/marketplaces/${id}/events`)
        .set('Content-Type', 'application/json')
        .send(body);
      // The body changed after signing (one space): the signature covers the raw bytes.
      const altered = await t
        .http()
        .post(`/api/marketplaces/${id}/events`)
        .set(signed(secret, body))
        .send(body.replace(':', ': '));
      for (const res of [forged, stale, missing, altered]) {
        expect(res.status).toBe(401);
        expect(res.body.message).toBe(INVALID_SIGNATURE);
      }
      const unknownRef = await push(id, secret, { ...event, externalRef: 'NOT-MAPPED' });
      expect(unknownRef.status).toBe(422);
      expect(await codeStates([code])).toEqual([]);
      // Nothing was recorded: the same id, well signed and mapped, applies.
      expect((await push(id, secret, event)).body).toEqual({ applied: 1, duplicates: 0, unknown: 0 });
    });

    it('refuses bad input with a clear message: too many codes, a malformed code, an unknown type', async () => {
      const { id, secret, ref } = await connect();
      const base = { id: 'evt-b', type: 'voucher.created', externalRef: ref };
      const tooMany = await push(id, secret, { ...base, codes: Array.from({ length: 1001 }, (_, i) => `BULK-${i}`) });
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.message).toBe('An event carries at most 1000 codes.');
      const malformed = await push(id, secret, { ...base, codes: ['NOT A CODE!'] });
      expect(malformed.status).toBe(400);
      expect(malformed.body.message).toBe('Invalid voucher code format');
      const type = await push(id, secret, { ...base, type: 'voucher.lost', codes: [] });
      expect(type.status).toBe(400);
      expect(type.body.message).toBe('type must be one of: voucher.created, voucher.refunded, voucher.cancelled.');
      expect(
        (await t.db.query(`SELECT count(*)::int AS n FROM marketplace_events WHERE connection_id = $1`, [id]))[0].n,
      ).toBe(0);
    });

    it('voucher.refunded voids an unredeemed code and refunds a redeemed one; the customer is told so', async () => {
      const { id, secret, product, ref, marketplace } = await connect({ reportRedemptions: true });
      const [unredeemed] = await addCodes(t.db, product, [randomCode('MKR')]);
      const redeemed = await redeemNew(t, product, {}, 'MKD');
      const res = await push(id, secret, {
        id: 'evt-r',
        type: 'voucher.refunded',
        externalRef: ref,
        codes: [unredeemed, redeemed.code, 'NOT-OF-THIS-PRODUCT'],
      });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ applied: 2, duplicates: 0, unknown: 1 });
      expect(
        (await codeStates([unredeemed, redeemed.code])).map(
          (s: { state: string; product: string; batch: string }) => s.state,
        ),
      ).toEqual([unredeemed, redeemed.code].sort().map((c) => (c === unredeemed ? 'void' : 'refunded')));
      const again = await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: unredeemed }));
      expect(again.status).toBe(410);
      expect(await audit('marketplace.refund', id)).toBe(1);
      expect((await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.refundsApplied).toBe(2);
      // The marketplace sent the refund: it is not reported back to it.
      await eventually(async () => marketplace.callsTo('/redemptions').length === 1, 10_000, 'the redemption report');
      expect(marketplace.callsTo('/refunds')).toEqual([]);
    });
  });
});
