import { randomBytes } from 'crypto';
import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  randomCode,
  redeemBody,
  RedeemBody,
} from './helpers/factories';
import { emailStatus, eventually, keysAssignedTo } from './helpers/redemptions';

const OFF = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};
type Rules = typeof OFF;

const METRICS = 'risk-metrics-token-0123456789';
let serial = 0;
const nextIp = () => `203.0.113.${++serial}`;
const uniqueEmail = () => `held.${Date.now().toString(36)}.${++serial}@example.com`;

/**
 * Held redemptions (docs/product.md §25) through the real API, database and mail outbox (.eml files): each rule's review
 * outcome holds the redemption with no key anywhere (answer, success page, e-mail) until staff approve it; refuse
 * refunds it; two racers at a threshold give one served and one held.
 */
describe('Risk rules: held redemptions and the review queue', () => {
  let t: TestApp;
  let admin: { Authorization: string };
  let operator: { Authorization: string };

  beforeAll(async () => {
    // The shared Redis the counting rules count in (docs/product.md §25.1), as in production: the racers' counts are
    // the attempt store's.
    t = await startTestApp({
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      METRICS_TOKEN: METRICS,
      REDIS_URL: 'redis://127.0.0.1:6379',
      REDIS_PREFIX: `test-${randomBytes(4).toString('hex')}`,
    });
    admin = bearer(await tokenFor(t, 'admin'));
    operator = bearer(await tokenFor(t, 'operator'));
  });
  afterEach(async () => {
    await t.http().put('/api/risk/rules').set(admin).send(OFF).expect(200);
    for (const e of (await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body) {
      await t.http().delete(`/api/risk/blocklist/${e.id}`).set(admin).expect(200);
    }
  });
  afterAll(() => t?.close());

  const setRules = (changes: Partial<Rules>) =>
    t
      .http()
      .put('/api/risk/rules')
      .set(admin)
      .send({ ...OFF, ...changes })
      .expect(200);
  /** A code of a product of its own with one free pool key. */
  const keyedCode = async () => {
    const product = await licenseManagedProduct(t.db, `Held ${randomCode('P')}`);
    const key = `KEY-${randomCode('K').slice(0, 20)}`;
    await addLicenseKey(t.db, product, key);
    const [code] = await addCodes(t.db, product, [randomCode('HELD')]);
    return { code, key };
  };
  const redeem = (ip: string, body: Partial<RedeemBody> & { voucherCode: string }) =>
    t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody(body));
  const redemptionOf = async (code: string) =>
    (
      await t.db.query(
        `SELECT r.id, r.held_at, r.refunded_at FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
          WHERE v.code = $1`,
        [code],
      )
    )[0];
  const queue = async () => (await t.http().get('/api/reviews?status=held').set(operator).expect(200)).body;
  const mails = () => {
    const dir = join(t.dataDir, 'mail');
    try {
      return readdirSync(dir)
        .filter((f) => f.endsWith('.eml'))
        .map((f) => readFileSync(join(dir, f), 'utf8'));
    } catch {
      return [];
    }
  };
  /** The success page's view of a redemption's answer. */
  const pageOf = async (res: { body: Record<string, unknown> }) =>
    (await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200)).body;
  /** Held: 201 on the manual-processing page, in the queue naming `rule`, no key assigned or shown. */
  const expectHeld = async (res: { status: number; body: Record<string, unknown> }, code: string, rule: string) => {
    expect(res.status).toBe(201);
    const { id } = await redemptionOf(code);
    expect(await keysAssignedTo(t, id)).toEqual([]);
    const view = await pageOf(res);
    expect([view.isManualProcessing, view.licenseKey]).toEqual([true, null]);
    const item = (await queue()).items.find((i: { redemptionId: string }) => i.redemptionId === id);
    expect(item).toMatchObject({ voucherCode: code, rules: [expect.objectContaining({ rule })] });
    return id as string;
  };

  it("holds each rule's review outcome (and serves it with the rule off)", async () => {
    const email = uniqueEmail();
    const ip = nextIp();
    const cases: Array<[string, Partial<Rules>, () => Partial<RedeemBody>, string?]> = [
      ['emailPerDay', { emailPerDay: { enabled: true, threshold: 1, action: 'review' } }, () => ({ email })],
      ['addressPerHour', { addressPerHour: { enabled: true, threshold: 1, action: 'review' } }, () => ({}), ip],
      [
        'disposableEmail',
        { disposableEmail: { enabled: true, action: 'review' } },
        () => ({ email: `d${++serial}@mailinator.com` }),
      ],
      [
        'countryMismatch',
        { countryMismatch: { enabled: true, action: 'review' } },
        () => ({ phone: '+44 20 7946 0958' }),
        '8.8.8.8',
      ],
      ['blocklist', { blocklist: { enabled: true, action: 'review' } }, () => ({ email: 'listed@farm.example' })],
    ];
    await t.http().post('/api/risk/blocklist').set(admin).send({ kind: 'domain', value: 'farm.example' }).expect(201);
    for (const [rule, on, body, from] of cases) {
      // Off: served with its key.
      const served = await keyedCode();
      const first = await redeem(from ?? nextIp(), { voucherCode: served.code, ...body() });
      expect([rule, first.status, (await pageOf(first)).licenseKey]).toEqual([rule, 201, served.key]);
      await setRules(on);
      if (rule === 'emailPerDay' || rule === 'addressPerHour') {
        // A counting rule counts from when it is on: the first is at the threshold (served), the next over it.
        const atThreshold = await keyedCode();
        const res = await redeem(from ?? nextIp(), { voucherCode: atThreshold.code, ...body() });
        expect([rule, (await pageOf(res)).licenseKey]).toEqual([rule, atThreshold.key]);
      }
      const held = await keyedCode();
      await expectHeld(await redeem(from ?? nextIp(), { voucherCode: held.code, ...body() }), held.code, rule);
      await setRules({});
    }
  });

  it('shows a held key nowhere until approved; approval assigns it, sends the order e-mail and the page shows it', async () => {
    await setRules({ disposableEmail: { enabled: true, action: 'review' } });
    const email = `w${++serial}@mailinator.com`;
    const held = await keyedCode();
    const res = await redeem(nextIp(), { voucherCode: held.code, email });
    const id = await expectHeld(res, held.code, 'disposableEmail');
    const heldGauge = async () => {
      const text = (await t.http().get('/metrics').set('Authorization', `Bearer ${METRICS}`).expect(200)).text;
      return Number(/^redemptions_held (\d+)$/m.exec(text)?.[1]);
    };
    const waiting = (await queue()).total;
    expect(await heldGauge()).toBe(waiting);
    // A redemption made after it gets its e-mail: the outbox ran past the held one, which stays pending.
    const later = await keyedCode();
    await redeem(nextIp(), { voucherCode: later.code }).expect(201);
    const laterId = (await redemptionOf(later.code)).id;
    await eventually(async () => (await emailStatus(t, laterId)) === 'sent', 15_000, "the later redemption's e-mail");
    expect(await emailStatus(t, id)).toBe('pending');
    expect(mails().filter((m) => m.includes(held.key) || m.includes(email))).toEqual([]);

    await t.http().post(`/api/reviews/${id}/approve`).set(operator).expect(200);
    expect(await heldGauge()).toBe(waiting - 1);
    expect((await keysAssignedTo(t, id)).map((k: { license_key: string }) => k.license_key)).toEqual([held.key]);
    const view = (await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200)).body;
    expect([view.isManualProcessing, view.licenseKey]).toEqual([false, held.key]);
    await eventually(async () => (await emailStatus(t, id)) === 'sent', 15_000, 'the approved order e-mail');
    expect(mails().filter((m) => m.includes(held.key))).toHaveLength(1);
    expect((await queue()).items.map((i: { redemptionId: string }) => i.redemptionId)).not.toContain(id);
    await t.http().post(`/api/reviews/${id}/approve`).set(operator).expect(409);
    const [audit] = await t.db.query(
      `SELECT 1 FROM security_audit_log WHERE action = 'review.approve' AND resource_id = $1`,
      [id],
    );
    expect(audit).toBeDefined();
  });

  it('refuses a held redemption: refunded, no key, no e-mail, optional blocklist entry; bad input changes nothing', async () => {
    await setRules({ disposableEmail: { enabled: true, action: 'review' } });
    const email = `r${++serial}@mailinator.com`;
    const held = await keyedCode();
    const res = await redeem(nextIp(), { voucherCode: held.code, email });
    const id = await expectHeld(res, held.code, 'disposableEmail');
    await t
      .http()
      .post(`/api/reviews/${id}/refuse`)
      .set(operator)
      .send({ blocklist: ['hardware'] })
      .expect(400);
    expect((await redemptionOf(held.code)).refunded_at).toBeNull();
    await t
      .http()
      .post(`/api/reviews/${id}/refuse`)
      .set(operator)
      .send({ blocklist: ['email'] })
      .expect(200);
    expect((await redemptionOf(held.code)).refunded_at).not.toBeNull();
    expect(await keysAssignedTo(t, id)).toEqual([]);
    // The success page says what the refusal e-mail says, and shows no key.
    const view = await t.http().get(`/api/success-token/${res.body.successToken}`).expect(410);
    expect(view.body.message).toMatch(/^We could not complete this redemption\. Please contact support at .+\.$/);
    const entries = (await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body;
    expect(entries.map((e: { kind: string; value: string }) => [e.kind, e.value])).toEqual([['email', email]]);
    expect((await queue()).items.map((i: { redemptionId: string }) => i.redemptionId)).not.toContain(id);
    await t.http().post(`/api/reviews/${id}/approve`).set(operator).expect(409);
    expect(mails().filter((m) => m.includes(held.key))).toEqual([]);
  });

  it('two racers with one e-mail at the threshold: one served, one held, never two served', async () => {
    await setRules({ emailPerDay: { enabled: true, threshold: 1, action: 'review' } });
    for (let round = 0; round < 3; round++) {
      const email = uniqueEmail();
      const codes = [await keyedCode(), await keyedCode()];
      const answers = await Promise.all(codes.map((c) => redeem(nextIp(), { voucherCode: c.code, email })));
      expect(answers.map((a) => a.status)).toEqual([201, 201]);
      const pages = await Promise.all(answers.map(pageOf));
      expect(pages.map((p) => p.isManualProcessing).sort()).toEqual([false, true]);
      const held = await Promise.all(codes.map(async (c) => (await redemptionOf(c.code)).held_at !== null));
      expect(held.sort()).toEqual([false, true]);
    }
  });

  it('lets only reviews.manage holders at the queue', async () => {
    const manager = bearer(await tokenFor(t, 'shop-manager'));
    await t.http().get('/api/reviews?status=held').set(manager).expect(403);
    await t.http().get('/api/reviews?status=open').set(operator).expect(400);
  });
});
