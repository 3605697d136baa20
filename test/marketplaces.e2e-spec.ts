import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { createProduct } from './helpers/admin-data';
import { addCodes, randomCode, redeemBody } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';
import { signed, startMarketplace, TestMarketplace } from './helpers/marketplace';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';
import { Clock } from '../backend/src/common/clock';
import { MarketplaceListener } from '../backend/src/modules/marketplace/marketplace.listener';
import { MarketplaceReportRepository } from '../backend/src/modules/marketplace/marketplace-report.repository';

const INVALID_SIGNATURE = 'Invalid signature';
const UNCONFIRMED = 'We cannot confirm this voucher right now. Please try again in a few minutes.';

/**
 * Marketplace connections (docs/product.md §24) through the real API and job queue, against a real marketplace server
 * on 127.0.0.1 (test/helpers/marketplace.ts): the admin API and its SSRF guard, signed inbound events (forged, stale,
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
      MARKETPLACE_TIMEOUT_MS: '300',
    });
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterEach(async () => {
    for (const m of (await t.http().get('/api/marketplaces').set(admin)).body) {
      await t.http().delete(`/api/marketplaces/${m.id}`).set(admin);
    }
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

    it('status counts the redemptions of each product while the connection serves it, none from before or after', async () => {
      const earlier = await createProduct(t, admin);
      await redeemNew(t, earlier, {}, 'MKB');
      await redeemNew(t, earlier, {}, 'MKB');
      const c = await connect();
      const redeemed = async () =>
        (await t.http().get(`/api/marketplaces/${c.id}/status`).set(admin).expect(200)).body.redeemed;
      expect(await redeemed()).toBe(0);
      await redeemNew(t, c.product, {}, 'MKB');
      expect(await redeemed()).toBe(1);
      // `earlier` joins (its two redemptions before are not the connection's); the first product keeps its count.
      const both = [
        { productId: c.product, externalRef: c.ref },
        { productId: earlier, externalRef: 'SKU-EARLIER' },
      ];
      await t.http().patch(`/api/marketplaces/${c.id}`).set(admin).send({ products: both }).expect(200);
      expect(await redeemed()).toBe(1);
      await redeemNew(t, earlier, {}, 'MKB');
      await redeemNew(t, c.product, {}, 'MKB');
      expect(await redeemed()).toBe(3);
      // The first product leaves: what it counted stays, what it redeems afterwards is not the connection's.
      await t
        .http()
        .patch(`/api/marketplaces/${c.id}`)
        .set(admin)
        .send({ products: both.slice(1) })
        .expect(200);
      expect(await redeemed()).toBe(3);
      await redeemNew(t, c.product, {}, 'MKB');
      expect(await redeemed()).toBe(3);
      await redeemNew(t, earlier, {}, 'MKB');
      expect(await redeemed()).toBe(4);
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

    it("one batch per the service's day (TZ), the day the reconciliation's CSV reads", async () => {
      const { id, secret, product, ref } = await connect();
      // 23:30 UTC on the 6th is the 7th in Tokyo.
      const at = new Date('2026-12-06T23:30:00Z');
      const zone = t.config.timeZone;
      jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(at);
      t.config.timeZone = 'Asia/Tokyo';
      try {
        const event = { id: 'evt-tz', type: 'voucher.created', externalRef: ref, codes: [randomCode('MKT')] };
        expect((await push(id, secret, event, at.getTime() / 1000)).status).toBe(200);
      } finally {
        t.config.timeZone = zone;
        jest.restoreAllMocks();
      }
      const batches = (await t.http().get(`/api/products/${product}/batches`).set(admin).expect(200)).body;
      expect(batches.map((b: { fileName: string }) => b.fileName)).toEqual([`marketplace ${ref} 2026-12-07`]);
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

    it('takes 1,000 codes of 98 characters in one event; 1,000 of 100 exceed 100 kB: 413, nothing recorded', async () => {
      // The longest event id and externalRef around the codes (docs/product.md §24.9).
      const ref = `R${'F'.repeat(199)}`;
      const { id, secret } = await connect({}, ref);
      const codes = (length: number, tag: string) =>
        Array.from({ length: 1000 }, (_, i) => `${tag}${String(i).padStart(4, '0')}`.padEnd(length, 'X'));
      const eventId = `E${'9'.repeat(199)}`;
      const tooLarge = await push(id, secret, {
        id: eventId,
        type: 'voucher.created',
        externalRef: ref,
        codes: codes(100, 'L'),
      });
      expect([tooLarge.status, tooLarge.body.message]).toEqual([413, 'The request body is too large (at most 100 kB)']);
      const events = async () =>
        (await t.db.query(`SELECT count(*)::int AS n FROM marketplace_events WHERE connection_id = $1`, [id]))[0].n;
      expect(await events()).toBe(0);
      const fits = await push(id, secret, {
        id: eventId,
        type: 'voucher.created',
        externalRef: ref,
        codes: codes(98, 'F'),
      });
      expect(fits.status).toBe(200);
      expect(fits.body).toEqual({ applied: 1000, duplicates: 0, unknown: 0 });
      expect(await events()).toBe(1);
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
      // The refunded redemption's success page is closed (docs/product.md §24.8).
      const page = await t.http().get(`/api/success-token/${redeemed.successToken}`);
      expect([page.status, page.body.message]).toEqual([410, 'This order has been refunded. Please contact support.']);
      expect(await audit('marketplace.refund', id)).toBe(1);
      expect((await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.refundsApplied).toBe(2);
      // The marketplace sent the refund: it is not reported back to it.
      await eventually(async () => marketplace.callsTo('/redemptions').length === 1, 10_000, 'the redemption report');
      expect(marketplace.callsTo('/refunds')).toEqual([]);

      // The same refund again in a new event (a second refund run): nothing is applied twice.
      const twice = await push(id, secret, {
        id: 'evt-r2',
        type: 'voucher.cancelled',
        externalRef: ref,
        codes: [unredeemed, redeemed.code],
      });
      expect([twice.status, twice.body]).toEqual([200, { applied: 0, duplicates: 2, unknown: 0 }]);
      expect((await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.refundsApplied).toBe(2);
      const voids = await t.db.query(
        `SELECT details FROM security_audit_log WHERE action = 'vouchers.void' AND resource_id = $1
          ORDER BY created_at`,
        [product],
      );
      expect(
        voids.map((v: { details: { refundedAfterRedemption: number } }) => v.details.refundedAfterRedemption),
      ).toEqual([1, 0]);
    });
  });

  describe('live check at redeem', () => {
    const redeem = (code: string) =>
      t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }));

    it('asks the marketplace, signed, before the claim, and answers as its status says', async () => {
      const { product, ref, marketplace } = await connect({ checkAtRedeem: true });
      const [valid, refunded, cancelled, unknown, redeemed] = await addCodes(
        t.db,
        product,
        Array.from({ length: 5 }, () => randomCode('MKC')),
      );
      marketplace.statuses.set(refunded, 'refunded');
      marketplace.statuses.set(cancelled, 'cancelled');
      marketplace.statuses.set(unknown, 'unknown');
      marketplace.statuses.set(redeemed, 'redeemed');
      expect((await redeem(valid)).status).toBe(201);
      for (const code of [refunded, cancelled]) {
        const res = await redeem(code);
        expect([res.status, res.body.message]).toEqual([
          410,
          'This voucher code has been cancelled. Please contact support.',
        ]);
      }
      const miss = await redeem(unknown);
      expect([miss.status, miss.body.message]).toEqual([
        404,
        'Invalid voucher code. Please check the code and try again.',
      ]);
      const used = await redeem(redeemed);
      expect([used.status, used.body.message]).toEqual([409, 'This voucher code has already been redeemed.']);
      const checks = marketplace.callsTo('/vouchers/check');
      expect(checks.map((c) => [c.signed, c.json])).toEqual(
        [valid, refunded, cancelled, unknown, redeemed].map((code) => [true, { code, externalRef: ref }]),
      );
      const states = Object.fromEntries(
        (await codeStates([valid, refunded, cancelled, unknown, redeemed])).map(
          (s: { code: string; state: string }) => [s.code, s.state],
        ),
      );
      expect(states).toEqual({
        [valid]: 'redeemed',
        [refunded]: 'void',
        [cancelled]: 'void',
        [unknown]: 'available',
        [redeemed]: 'available',
      });
    });

    it('a check that finds a code redeemed here refunded since refunds it, and does not report that back', async () => {
      const { id, product, marketplace } = await connect({ checkAtRedeem: true, reportRedemptions: true });
      const [code] = await addCodes(t.db, product, [randomCode('MKQ')]);
      expect((await redeem(code)).status).toBe(201);
      const acked = async () => (await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.reports.acked;
      await eventually(async () => (await acked()) === 1, 10_000, 'the redemption report');
      // The purchase was refunded at the marketplace; someone tries the code again.
      marketplace.statuses.set(code, 'refunded');
      const again = await redeem(code);
      expect([again.status, again.body.message]).toEqual([
        410,
        'This voucher code has been cancelled. Please contact support.',
      ]);
      const [state] = await codeStates([code]);
      expect(state.state).toBe('refunded');
      // Its refund row is written as acknowledged, so never sent: a pending one would be sent at once.
      const rows = await t.db.query(`SELECT kind, status FROM marketplace_reports WHERE code = $1 ORDER BY kind`, [
        code,
      ]);
      expect(rows).toEqual([
        { kind: 'redemption', status: 'acked' },
        { kind: 'refund', status: 'acked' },
      ]);
      expect(marketplace.callsTo('/refunds')).toEqual([]);
    });

    it('unreachable: refuse answers 503 and claims nothing; accept redeems and re-checks later', async () => {
      const refusing = await connect({ checkAtRedeem: true, onUnreachable: 'refuse' });
      const [held] = await addCodes(t.db, refusing.product, [randomCode('MKU')]);
      const down = await startMarketplace((call) => (call.path.includes('/vouchers/check') ? 'hang' : undefined));
      marketplaces.push(down);
      await t.http().patch(`/api/marketplaces/${refusing.id}`).set(admin).send({ baseUrl: down.baseUrl }).expect(200);
      const refused = await redeem(held);
      expect([refused.status, refused.body.message]).toEqual([503, UNCONFIRMED]);
      expect((await codeStates([held]))[0].state).toBe('available');

      // accept: the first check hangs, the re-check later says the purchase was refunded since.
      let checks = 0;
      const flaky = await startMarketplace((call) =>
        call.path.includes('/vouchers/check')
          ? ++checks === 1
            ? 'hang'
            : { status: 200, body: { status: 'refunded' } }
          : undefined,
      );
      marketplaces.push(flaky);
      const accepting = await connect({ checkAtRedeem: true, onUnreachable: 'accept' });
      await t.http().patch(`/api/marketplaces/${accepting.id}`).set(admin).send({ baseUrl: flaky.baseUrl }).expect(200);
      flaky.useSecret(accepting.secret);
      const [code] = await addCodes(t.db, accepting.product, [randomCode('MKV')]);
      expect((await redeem(code)).status).toBe(201);
      await eventually(async () => (await codeStates([code]))[0].state === 'refunded', 10_000, 'the re-check refund');
      expect(checks).toBe(2);
    });

    it('50 racers redeeming one connected code: one redemption, one report', async () => {
      const { product, marketplace } = await connect({ checkAtRedeem: true });
      const [code] = await addCodes(t.db, product, [randomCode('MKX')]);
      const answers = await Promise.all(
        Array.from({ length: 50 }, () =>
          t
            .http()
            .post('/api/redeem-voucher')
            .send(redeemBody({ voucherCode: code })),
        ),
      );
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(1);
      expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
      await eventually(async () => marketplace.callsTo('/redemptions').length === 1, 10_000, 'the report');
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      );
      expect(n).toBe(1);
    });

    it('a product without a connection is never checked', async () => {
      const { marketplace } = await connect({ checkAtRedeem: true });
      const other = await createProduct(t, admin);
      const [code] = await addCodes(t.db, other, [randomCode('MKN')]);
      expect((await redeem(code)).status).toBe(201);
      expect(marketplace.calls).toEqual([]);
    });
  });

  describe('reports', () => {
    afterEach(() => jest.restoreAllMocks());

    it('reports each redemption once with its id as Idempotency-Key, retrying until the marketplace acks', async () => {
      let answered = 0;
      const marketplace = await startMarketplace((call) =>
        call.path.endsWith('/redemptions') && ++answered <= 2 ? { status: 503 } : undefined,
      );
      marketplaces.push(marketplace);
      const c = await connect();
      await t.http().patch(`/api/marketplaces/${c.id}`).set(admin).send({ baseUrl: marketplace.baseUrl }).expect(200);
      marketplace.useSecret(c.secret);
      const redemption = await redeemNew(t, c.product, {}, 'MKP');
      await eventually(
        async () => (await t.http().get(`/api/marketplaces/${c.id}/status`).set(admin)).body.reports.acked === 1,
        10_000,
        'the ack',
      );
      const reports = marketplace.callsTo('/redemptions');
      expect(reports).toHaveLength(3);
      for (const r of reports) {
        expect(r.signed).toBe(true);
        expect(r.headers['idempotency-key']).toBe(redemption.id);
        expect(r.json).toEqual({
          code: redemption.code,
          externalRef: c.ref,
          redeemedAt: expect.any(String),
          redemptionId: redemption.id,
        });
      }
      const status = (await t.http().get(`/api/marketplaces/${c.id}/status`).set(admin)).body;
      expect(status).toMatchObject({ redeemed: 1, reports: { acked: 1, pending: 0, dead: 0 }, reportLagSeconds: 0 });
    });

    it("the customer's answer does not wait for the report row, which is written after it", async () => {
      const c = await connect();
      const reports = t.app.get(MarketplaceReportRepository);
      const insert = reports.insert.bind(reports);
      let open!: () => void;
      const gate = new Promise<void>((resolve) => (open = resolve));
      // Should the answer wait for the row, it comes once this opens the gate, with the row already written.
      const valve = setTimeout(() => open(), 5_000);
      const held = jest.spyOn(reports, 'insert').mockImplementation(async (row) => {
        await gate;
        return insert(row);
      });
      try {
        const redemption = await redeemNew(t, c.product, {}, 'MKW');
        const rows = () =>
          t.db.query(`SELECT status FROM marketplace_reports WHERE redemption_id = $1`, [redemption.id]);
        expect(await rows()).toEqual([]);
        open();
        await eventually(async () => c.marketplace.callsTo('/redemptions').length === 1, 10_000, 'the report');
        expect((await rows()).length).toBe(1);
      } finally {
        clearTimeout(valve);
        open();
        held.mockRestore();
      }
    });

    it('a redemption whose process died before its report row was written is still reported, once', async () => {
      const c = await connect();
      // The listener that writes the row after the commit never runs: as if the API died right after the redemption.
      jest.spyOn(t.app.get(MarketplaceListener), 'redeemed').mockReturnValue(undefined);
      const redemption = await redeemNew(t, c.product, {}, 'MKK');
      await eventually(async () => c.marketplace.callsTo('/redemptions').length > 0, 15_000, 'the swept report');
      jest.restoreAllMocks();
      expect(c.marketplace.callsTo('/redemptions').map((r) => r.headers['idempotency-key'])).toEqual([redemption.id]);
      const [{ n }] = await t.db.query(
        `SELECT count(*)::int AS n FROM marketplace_reports WHERE redemption_id = $1 AND kind = 'redemption'`,
        [redemption.id],
      );
      expect(n).toBe(1);
    });

    it('a report failing past the retry window is dead, listed, and sent again by retry-dead; a refund is reported', async () => {
      let down = true;
      const marketplace = await startMarketplace((call) =>
        down && call.path.endsWith('/redemptions') ? { status: 500 } : undefined,
      );
      marketplaces.push(marketplace);
      const c = await connect();
      await t.http().patch(`/api/marketplaces/${c.id}`).set(admin).send({ baseUrl: marketplace.baseUrl }).expect(200);
      marketplace.useSecret(c.secret);
      const redemption = await redeemNew(t, c.product, {}, 'MKZ');
      await eventually(async () => marketplace.callsTo('/redemptions').length >= 1, 10_000, 'a first attempt');
      // A day and an hour later (the Clock): the next attempt is past the window.
      jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + 25 * 3_600_000));
      await eventually(
        async () => (await t.http().get(`/api/marketplaces/${c.id}/status`).set(admin)).body.reports.dead === 1,
        10_000,
        'dead',
      );
      jest.restoreAllMocks();
      // A long run of attempts (12 at the default 30 s reach the window's end): the retried report starts its
      // backoff again, so its first failure leaves it pending for another window, not dead at once.
      await t.db.query(`UPDATE marketplace_reports SET attempts = 30 WHERE redemption_id = $1`, [redemption.id]);
      const report = async () =>
        (
          await t.db.query(`SELECT status, last_error FROM marketplace_reports WHERE redemption_id = $1`, [
            redemption.id,
          ])
        )[0] as { status: string; last_error: string | null };
      const retried = await t.http().post(`/api/marketplaces/${c.id}/retry-dead`).set(admin).expect(200);
      expect(retried.body).toEqual({ message: '1 dead report queued again.', requeued: 1 });
      await eventually(async () => (await report()).last_error !== null, 10_000, 'a failed retried attempt');
      expect((await report()).status).toBe('pending');
      down = false;
      await eventually(
        async () => (await t.http().get(`/api/marketplaces/${c.id}/status`).set(admin)).body.reports.acked === 1,
        10_000,
        'the ack',
      );
      expect(new Set(marketplace.callsTo('/redemptions').map((r) => r.headers['idempotency-key']))).toEqual(
        new Set([redemption.id]),
      );

      // Refunded here (a void) after it was reported: the marketplace is told.
      await t
        .http()
        .post(`/api/products/${c.product}/voucher-codes/void`)
        .set(admin)
        .send({ codes: [redemption.code] })
        .expect(200);
      await eventually(async () => marketplace.callsTo('/refunds').length === 1, 10_000, 'the refund report');
      expect(marketplace.callsTo('/refunds')[0].json).toEqual({ redemptionId: redemption.id, code: redemption.code });
    });
    it('a void file refunding 1,001 reported redemptions reports each refund once', async () => {
      const { id, product, marketplace } = await connect({ reportRedemptions: true });
      const codes = await addCodes(
        t.db,
        product,
        Array.from({ length: 1001 }, () => randomCode('MKV')),
      );
      for (let i = 0; i < codes.length; i += 8) {
        await Promise.all(
          codes.slice(i, i + 8).map((code) =>
            t
              .http()
              .post('/api/redeem-voucher')
              .send(redeemBody({ voucherCode: code }))
              .expect(201),
          ),
        );
      }
      const acked = async () => (await t.http().get(`/api/marketplaces/${id}/status`).set(admin)).body.reports.acked;
      await eventually(async () => (await acked()) === 1001, 30_000, 'the redemption reports');
      const voided = await t
        .http()
        .post(`/api/products/${product}/voucher-codes/void`)
        .set(admin)
        .attach('file', Buffer.from(codes.join('\n'), 'utf8'), 'refunds.txt')
        .expect(200);
      expect(voided.body.refundedAfterRedemption).toHaveLength(1001);
      // Every refund, past the 1,000 the void's audit row names: one outbox row per redemption, each acknowledged.
      // Under this burst a few first attempts fail (8-15 of 1,001 in three runs, with MARKETPLACE_TIMEOUT_MS 300) and
      // are sent again with their key, as the protocol allows (docs/marketplaces.md): the keys are counted.
      await eventually(async () => (await acked()) === 2002, 30_000, 'the refund reports');
      const refundIds = voided.body.refundedAfterRedemption.map(
        (r: { redemptionId: string }) => `refund-${r.redemptionId}`,
      );
      const keys = new Set(marketplace.callsTo('/refunds').map((c) => c.headers['idempotency-key']));
      expect([...keys].sort()).toEqual([...refundIds].sort());
      const [{ rows }] = await t.db.query(
        `SELECT count(*)::int AS rows FROM marketplace_reports WHERE kind = 'refund' AND connection_id = $1`,
        [id],
      );
      expect(rows).toBe(1001);
    });
  });

  describe('pull', () => {
    it('pulls events on the interval with the cursor kept per connection, applied as pushed ones', async () => {
      const c = await connect({ pullIntervalSeconds: 10 });
      const [first, second] = [randomCode('MKL'), randomCode('MKL')];
      c.marketplace.events.push({ id: 'pull-1', type: 'voucher.created', externalRef: c.ref, codes: [first] });
      const cursor = async () =>
        (await t.db.query(`SELECT pull_cursor FROM marketplace_connections WHERE id = $1`, [c.id]))[0].pull_cursor;
      await eventually(async () => (await cursor()) === '1', 10_000, 'the first pull');
      expect((await codeStates([first])).length).toBe(1);
      const pulls = c.marketplace.callsTo('/events');
      expect(pulls[0]).toMatchObject({ method: 'GET', path: '/mp/events?after=', signed: true, body: '' });
      c.marketplace.events.push({ id: 'pull-2', type: 'voucher.created', externalRef: c.ref, codes: [second] });
      // The next pull is due in 10 s: make it due now.
      await t.db.query(`UPDATE marketplace_connections SET next_pull_at = now() WHERE id = $1`, [c.id]);
      // The cursor is kept after the pull's events are applied: waited for, not the code (applied first).
      await eventually(async () => (await cursor()) === '2', 10_000, 'the second pull');
      expect((await codeStates([second])).length).toBe(1);
      expect(c.marketplace.callsTo('/events').at(-1)?.path).toBe('/mp/events?after=1');
      const [row] = await t.db.query(`SELECT pull_cursor, last_pull_error FROM marketplace_connections WHERE id = $1`, [
        c.id,
      ]);
      expect(row).toEqual({ pull_cursor: '2', last_pull_error: null });
    });
  });
});
