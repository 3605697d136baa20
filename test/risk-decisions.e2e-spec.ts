import { readdirSync, readFileSync } from 'fs';
import { join } from 'path';
import { Socket } from 'socket.io-client';
import { Clock } from '../backend/src/common/clock';
import { ReviewMailJob } from '../backend/src/modules/mail/review-mail.job';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken, tokenFor } from './helpers/auth';
import {
  addCodes,
  addLicenseKey,
  licenseManagedProduct,
  randomCode,
  redeemBody,
  RedeemBody,
} from './helpers/factories';
import { connectAdmin, nextUpdate } from './helpers/realtime';
import { emailStatus, eventually, keysAssignedTo } from './helpers/redemptions';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';

const OFF = {
  emailPerDay: { enabled: false, threshold: 3, action: 'review' },
  addressPerHour: { enabled: false, threshold: 5, action: 'review' },
  disposableEmail: { enabled: false, action: 'review' },
  countryMismatch: { enabled: false, action: 'review' },
  blocklist: { enabled: false, action: 'refuse' },
};
const SUPPORT = 'help@shop.example';
let serial = 0;
const nextIp = () => `198.51.100.${++serial}`;

/**
 * The review's decisions (docs/product.md §25.3, §25.4) through the real API, database, job queue and mail outbox
 * (.eml files): two reviewers at once (one decides, the other gets 409), approve with an empty pool (the backorder
 * queue), refuse's e-mail naming support, the webhooks and real-time updates, and the one alert per case past 2 hours.
 */
describe('Risk review: decisions, their events and the two-hour alert', () => {
  let t: TestApp;
  let admin: { Authorization: string };
  let operator: { Authorization: string };

  beforeAll(async () => {
    t = await startTestApp({
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      SUPPORT_EMAIL: SUPPORT,
      ...RECEIVERS_ON_LOOPBACK,
    });
    admin = bearer(await tokenFor(t, 'admin'));
    operator = bearer(await tokenFor(t, 'operator'));
    await t
      .http()
      .put('/api/risk/rules')
      .set(admin)
      .send({ ...OFF, disposableEmail: { enabled: true, action: 'review' } })
      .expect(200);
  });
  afterAll(async () => {
    await t?.http().put('/api/risk/rules').set(admin).send(OFF);
    await t?.close();
  });

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
  /** A held redemption (a disposable e-mail) of a product of its own, with `keys` free pool keys. */
  const heldCase = async (keys = 1) => {
    const product = await licenseManagedProduct(t.db, `Review ${randomCode('P')}`);
    const key = `KEY-${randomCode('K').slice(0, 20)}`;
    for (let i = 0; i < keys; i++) await addLicenseKey(t.db, product, i ? `${key}-${i}` : key);
    const [code] = await addCodes(t.db, product, [randomCode('REV')]);
    const email = `rev${++serial}.${Date.now().toString(36)}@mailinator.com`;
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', nextIp())
      .send(redeemBody({ voucherCode: code, email } as Partial<RedeemBody> & { voucherCode: string }))
      .expect(201);
    const [{ id }] = await t.db.query(
      `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [code],
    );
    const page = async () => (await t.http().get(`/api/success-token/${res.body.successToken}`).expect(200)).body;
    expect((await page()).isManualProcessing).toBe(true);
    return { id: id as string, code, key, email, product, page, token: res.body.successToken as string };
  };
  const decide = (id: string, decision: 'approve' | 'refuse', body: object = {}) =>
    t.http().post(`/api/reviews/${id}/${decision}`).set(operator).send(body);

  it('two reviewers at once: one decision wins, the other gets 409 naming it; one key, one order e-mail', async () => {
    for (const [a, b] of [
      ['approve', 'approve'],
      ['approve', 'refuse'],
      ['refuse', 'refuse'],
    ] as const) {
      const c = await heldCase();
      const answers = await Promise.all([decide(c.id, a), decide(c.id, b)]);
      const statuses = answers.map((r) => r.status).sort();
      expect([a, b, statuses]).toEqual([a, b, [200, 409]]);
      const [{ review_decision: decision }] = await t.db.query(
        `SELECT review_decision FROM redemptions WHERE id = $1`,
        [c.id],
      );
      const loser = answers.find((r) => r.status === 409)!;
      expect(loser.body.message).toBe(`This redemption was already ${decision}.`);
      // A repeat of either decision changes nothing and says the same.
      for (const again of ['approve', 'refuse'] as const) {
        expect((await decide(c.id, again).expect(409)).body.message).toBe(`This redemption was already ${decision}.`);
      }
      const keys = (await keysAssignedTo(t, c.id)).map((k: { license_key: string }) => k.license_key);
      expect(keys).toEqual(decision === 'approved' ? [c.key] : []);
      const audits = await t.db.query(
        `SELECT action FROM security_audit_log WHERE resource_id = $1 AND action LIKE 'review.%'`,
        [c.id],
      );
      expect(audits.map((r: { action: string }) => r.action)).toEqual([
        decision === 'approved' ? 'review.approve' : 'review.refuse',
      ]);
      if (decision === 'approved') {
        await eventually(async () => (await emailStatus(t, c.id)) === 'sent', 15_000, 'the order e-mail');
        expect(mails().filter((m) => m.includes(c.key))).toHaveLength(1);
      }
    }
    await decide('00000000-0000-4000-8000-000000000000', 'approve').expect(404);
  });

  it('approve with an empty pool: the case waits for a key like any backorder, then the page shows it', async () => {
    const c = await heldCase(0);
    await decide(c.id, 'approve').expect(200);
    expect(await keysAssignedTo(t, c.id)).toEqual([]);
    expect(await c.page()).toMatchObject({ isManualProcessing: true, licenseKey: null });
    const [{ awaiting_license: waiting }] = await t.db.query(`SELECT awaiting_license FROM redemptions WHERE id = $1`, [
      c.id,
    ]);
    expect(waiting).toBe(true);
    await t
      .http()
      .post('/api/license-keys')
      .set(admin)
      .send({
        productId: c.product,
        licenseKey: c.key,
        downloadLink: 'https://dl.example.com/r.exe',
        licenseType: 'single-user',
      })
      .expect(201);
    await eventually(async () => (await c.page()).licenseKey === c.key, 15_000, 'the backordered key');
    await eventually(async () => (await emailStatus(t, c.id)) === 'sent', 15_000, 'the order e-mail');
  });

  it('refuse: the code refunded, the customer e-mailed to contact support, blocklist entries added', async () => {
    const c = await heldCase();
    await decide(c.id, 'refuse', { blocklist: ['email'] }).expect(200);
    const refusal = await eventually(
      async () => mails().find((m) => m.includes(c.email) && m.includes(c.code)),
      15_000,
      'the refusal e-mail',
    );
    expect(refusal).toContain(`Please contact support at ${SUPPORT}.`);
    expect(refusal).not.toContain(c.key);
    const mailStatus = async () =>
      (await t.db.query(`SELECT review_mail_status FROM redemptions WHERE id = $1`, [c.id]))[0].review_mail_status;
    await eventually(async () => (await mailStatus()) === 'sent', 15_000, 'the refusal e-mail marked sent');
    // A refusal whose job was lost (still pending a while after the decision) is queued again by the sweep.
    const refusals = () => mails().filter((m) => m.includes(c.email) && m.includes(c.code)).length;
    await t.db.query(
      `UPDATE redemptions SET review_mail_status = 'pending', reviewed_at = now() - interval '1 hour' WHERE id = $1`,
      [c.id],
    );
    expect(await t.app.get(ReviewMailJob).sweepRefusals()).toBeGreaterThanOrEqual(1);
    await eventually(async () => refusals() === 2, 15_000, 'the swept refusal e-mail');
    await eventually(async () => (await mailStatus()) === 'sent', 15_000, 'the swept e-mail marked sent');
    // The success page is closed with the refusal's sentence: no key, no "Processing" promise.
    const closed = await t.http().get(`/api/success-token/${c.token}`).expect(410);
    expect(closed.body.message).toBe(`We could not complete this redemption. Please contact support at ${SUPPORT}.`);
    const [row] = await t.db.query(`SELECT refunded_at, email_status FROM redemptions WHERE id = $1`, [c.id]);
    expect(row.refunded_at).not.toBeNull();
    expect(row.email_status).toBe('pending');
    const entries = (await t.http().get('/api/risk/blocklist').set(admin).expect(200)).body;
    expect(entries.map((e: { value: string }) => e.value)).toContain(c.email);
    // The code redeems nothing again.
    await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', nextIp())
      .send(redeemBody({ voucherCode: c.code }))
      .expect(409);
  });

  it('webhooks redemption.held, .approved and .refused, and reviewUpdate on the consoles', async () => {
    const receiver = await startReceiver();
    let socket: Socket | undefined;
    try {
      const events = ['redemption.held', 'redemption.approved', 'redemption.refused', 'redemption.license_assigned'];
      const endpoint = (await t.http().post('/api/webhooks').set(admin).send({ url: receiver.url, events }).expect(201))
        .body;
      socket = await connectAdmin(t);
      const heldUpdate = nextUpdate(socket, 'reviewUpdate');
      const approved = await heldCase();
      expect((await heldUpdate).message).toBe(`Redemption of voucher ${approved.code} held for review`);
      const refused = await heldCase();
      const approvedUpdate = nextUpdate(socket, 'reviewUpdate');
      await decide(approved.id, 'approve').expect(200);
      expect((await approvedUpdate).message).toBe(`Redemption of voucher ${approved.code} approved`);
      await decide(refused.id, 'refuse').expect(200);
      const bodies = await eventually(
        async () => (receiver.received.length >= 5 ? receiver.received.map((h) => JSON.parse(h.body)) : undefined),
        15_000,
        'five deliveries',
      );
      const seen = bodies.map((b: { event: string; data: Record<string, unknown> }) => [b.event, b.data]);
      expect(seen).toEqual(
        expect.arrayContaining([
          ['redemption.held', expect.objectContaining({ redemptionId: approved.id, rules: ['disposableEmail'] })],
          ['redemption.held', expect.objectContaining({ redemptionId: refused.id, voucherCode: refused.code })],
          ['redemption.approved', expect.objectContaining({ redemptionId: approved.id, keyAssigned: true })],
          ['redemption.license_assigned', { redemptionId: approved.id, voucherCode: approved.code, source: 'review' }],
          ['redemption.refused', expect.objectContaining({ redemptionId: refused.id, voucherCode: refused.code })],
        ]),
      );
      expect(seen).toHaveLength(5);
      expect(receiver.received.map((h) => h.body).join('\n')).not.toContain(approved.key);
      await t.http().delete(`/api/webhooks/${endpoint.id}`).set(admin).expect(200);
    } finally {
      socket?.close();
      await receiver.close();
    }
  });

  it("a case's evidence: the other redemptions of its e-mail, address and phone, and the two countries", async () => {
    const ip = nextIp();
    const email = `ev${++serial}.${Date.now().toString(36)}@mailinator.com`;
    const phone = '+44 20 7946 0958';
    const redeemWith = async (body: Partial<RedeemBody>) => {
      const product = await licenseManagedProduct(t.db, `Evidence ${randomCode('P')}`);
      await addLicenseKey(t.db, product, `KEY-${randomCode('K').slice(0, 20)}`);
      const [code] = await addCodes(t.db, product, [randomCode('EV')]);
      await t
        .http()
        .post('/api/redeem-voucher')
        .set('X-Forwarded-For', ip)
        .send(redeemBody({ voucherCode: code, ...body }))
        .expect(201);
      const [{ id }] = await t.db.query(
        `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      );
      return { id: id as string, code };
    };
    // Another e-mail and phone from the address; the e-mail from elsewhere; the case; the phone from elsewhere.
    const byAddress = await redeemWith({ email: `other${++serial}@example.com`, phone: '+1 302 555 0100' });
    const byEmail = await redeemWith({ email, phone: '+1 302 555 0101' });
    await t.db.query(`UPDATE redemptions SET ip_address = '192.0.2.78' WHERE id = $1`, [byEmail.id]);
    const held = await redeemWith({ email, phone });
    const byPhone = await redeemWith({ email: `p${++serial}@example.com`, phone });
    await t.db.query(`UPDATE redemptions SET ip_address = '192.0.2.77' WHERE id = $1`, [byPhone.id]);
    const evidence = (await t.http().get(`/api/reviews/${held.id}/evidence`).set(operator).expect(200)).body;
    const codes = (list: Array<{ voucherCode: string }>) => list.map((r) => r.voucherCode);
    expect(evidence).toMatchObject({ redemptionId: held.id, ipAddress: ip, phoneCountry: 'GB' });
    expect(codes(evidence.sameAddress)).toEqual([byAddress.code]);
    expect(codes(evidence.samePhone)).toEqual([byPhone.code]);
    // The e-mail's first redemption was held too (the same disposable address).
    expect(evidence.sameEmail).toEqual([expect.objectContaining({ voucherCode: byEmail.code, held: true })]);
    await decide(held.id, 'approve').expect(200);
    await t.http().get(`/api/reviews/${held.id}/evidence`).set(operator).expect(404);
  });

  it('one alert e-mail to the admins when a case waits longer than 2 hours, once per case', async () => {
    const watcher = await createAdminUser(t, { role: 'admin' });
    await issueToken(t, watcher.id);
    const inbox = () => mails().filter((m) => m.includes(`${watcher.username}@example.com`));
    const job = t.app.get(ReviewMailJob);
    // Cases already past the mark from other tests are alerted first, so this test counts only its own.
    await job.alertOverdue();
    const before = inbox().length;
    const overdue = await heldCase();
    const fresh = await heldCase();
    const decided = await heldCase();
    await t.db.query(`UPDATE redemptions SET held_at = now() - interval '119 minutes' WHERE id = $1`, [overdue.id]);
    await t.db.query(`UPDATE redemptions SET held_at = now() - interval '3 hours' WHERE id = $1`, [decided.id]);
    await decide(decided.id, 'approve').expect(200);
    expect(await job.alertOverdue()).toBe(0);
    // Two minutes on: past the two hours.
    const now = Date.now() + 2 * 60_000;
    const clock = jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(now));
    try {
      expect(await job.alertOverdue()).toBe(1);
      expect(await job.alertOverdue()).toBe(0);
    } finally {
      clock.mockRestore();
    }
    const alerts = inbox().slice(before);
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toContain(overdue.code);
    expect(alerts[0]).not.toContain(fresh.code);
    expect(alerts[0]).not.toContain(decided.code);
  });
});
