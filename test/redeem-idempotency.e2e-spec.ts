import { createHash, randomBytes } from 'crypto';
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
import { watchJobs } from './helpers/jobs';
import { emailStatus, eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

const USED = 'This voucher code has already been redeemed.';

interface HistoryEvent {
  type: string;
  actor: string | null;
  description: string;
}

/**
 * Issue 24, finding "replay of code + e-mail" (docs/product.md §19.1): code and e-mail are not
 * secrets (a shop-manager sees both side by side), so a repeat of a redeemed code with its e-mail gets a success token
 * again only with the Idempotency-Key the redeem page sent with the redemption. Real API, PostgreSQL and SMTP.
 */
describe("idempotent redeem needs the redeem page's key", () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let product: string;
  let admin: { Authorization: string };

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url, GEO_BLOCKED_COUNTRIES: '' });
    product = await licenseManagedProduct(t.db, `Replay ${randomCode('P')}`);
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const newKey = () => randomBytes(16).toString('hex');
  const redeem = (body: RedeemBody, key?: string) => {
    const req = t.http().post('/api/redeem-voucher');
    if (key !== undefined) req.set('Idempotency-Key', key);
    return req.send(body);
  };
  const messagesTo = (email: string) => smtp.messages.filter((m) => JSON.stringify(m.to).includes(email));
  const history = async (id: string) =>
    (
      (await t.http().get(`/api/redemptions/${id}/history`).set(admin).expect(200)).body.events as HistoryEvent[]
    ).filter((e) => e.type === 'redeem-repeated');
  const stateOf = async (code: string) =>
    (
      await t.db.query(
        `SELECT r.id,
                (SELECT count(*)::int FROM success_tokens s WHERE s.redemption_id = r.id) AS tokens,
                (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS keys,
                (SELECT count(*)::int FROM email_logs l WHERE l.redemption_id = r.id) AS mails,
                r.email_attempts, r.email_status
           FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code],
      )
    )[0] as { id: string; tokens: number; keys: number; mails: number; email_attempts: number; email_status: string };

  /** A code of the product redeemed with a pool key and a page key, its order e-mail delivered. */
  async function redeemed(key: string | null = newKey()) {
    const [code] = await addCodes(t.db, product, [randomCode('RPL')]);
    await addLicenseKey(t.db, product, `RPL-${randomCode('').slice(1)}-ABCDE`);
    const body = redeemBody({ voucherCode: code });
    const first = await redeem(body, key ?? undefined).expect(201);
    const { id } = await stateOf(code);
    await eventually(
      async () => (await emailStatus(t, id)) === 'sent' && messagesTo(body.email).length === 1,
      20_000,
      'the order e-mail',
    );
    return { code, body, key, id, token: first.body.successToken as string };
  }

  it('a repeat without the key: 409 with the used-code text and no token, nothing written but its history', async () => {
    const r = await redeemed();
    const res = await redeem(r.body).expect(409);
    expect(res.body).toEqual({ statusCode: 409, message: USED, error: 'Conflict' });
    expect(res.body).not.toHaveProperty('successToken');
    expect(await stateOf(r.code)).toMatchObject({ tokens: 1, keys: 1, mails: 1 });
    expect(await history(r.id)).toEqual([
      {
        type: 'redeem-repeated',
        actor: 'Customer',
        description:
          'Redeemed again with the same code and e-mail without the redeem page’s key: refused (already redeemed)',
        at: expect.any(String),
        provider: null,
        error: null,
        licenseKey: null,
      },
    ]);
  });

  it('a repeat with another key: 409, no token, written to its history as refused', async () => {
    const r = await redeemed();
    const res = await redeem(r.body, newKey()).expect(409);
    expect(res.body).toEqual({ statusCode: 409, message: USED, error: 'Conflict' });
    expect(await stateOf(r.code)).toMatchObject({ tokens: 1, keys: 1, mails: 1 });
    expect((await history(r.id)).map((e) => e.description)).toEqual([
      'Redeemed again with the same code and e-mail with another redeem page’s key: refused (already redeemed)',
    ]);
  });

  it('the same key, code and e-mail: 200 with a fresh token for the same redemption; no second key, e-mail or row', async () => {
    const r = await redeemed();
    const before = await stateOf(r.code);
    const jobs = watchJobs(t);
    const again = await redeem({ ...r.body, email: ` ${r.body.email.toUpperCase()} ` }, r.key!).expect(200);
    expect(again.body).toEqual({
      success: true,
      productName: expect.stringContaining('Replay'),
      successToken: expect.any(String),
    });
    expect(again.body.successToken).not.toBe(r.token);
    const [page, firstPage] = await Promise.all(
      [again.body.successToken, r.token].map(
        async (token) => (await t.http().get(`/api/success-token/${token}`).expect(200)).body,
      ),
    );
    expect(page).toEqual(firstPage);
    expect(page.licenseKey).toMatch(/^RPL-/);

    const after = await stateOf(r.code);
    expect(after).toEqual({ ...before, tokens: before.tokens + 1 });
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
      [r.code],
    );
    expect(n).toBe(1);
    expect((await history(r.id)).map((e) => e.description)).toEqual([
      'Redeemed again with the same code, e-mail and redeem page: a new success-page link, nothing else',
    ]);
    // Every e-mail job and a pending-mail sweep ran since: no second order e-mail went out.
    await jobs.settled();
    expect(messagesTo(r.body.email)).toHaveLength(1);
    expect(await stateOf(r.code)).toMatchObject({ mails: 1, email_attempts: 1, email_status: 'sent' });
  });

  // The key stored hashed, a key-less redemption never answered with a token again, the same key with another
  // e-mail or code: test/medium/redemption-rules.medium-spec.ts (the service, without HTTP).

  it('an Idempotency-Key that is not one: 400 and nothing is redeemed', async () => {
    const [code] = await addCodes(t.db, product, [randomCode('BADKEY')]);
    for (const key of ['short', 'x'.repeat(129), 'with spaces in it 0123456789']) {
      const res = await redeem(redeemBody({ voucherCode: code }), key).expect(400);
      expect(res.body).toEqual({ statusCode: 400, message: 'Invalid Idempotency-Key header', error: 'Bad Request' });
    }
    const [voucher] = await t.db.query(`SELECT is_redeemed FROM voucher_codes WHERE code = $1`, [code]);
    expect(voucher.is_redeemed).toBe(false);
  });

  it('a shop-manager sees code and e-mail but never the key: the list, details, search and history carry none, and a replay from them is 409', async () => {
    const r = await redeemed();
    const user = await createAdminUser(t, { role: 'shop-manager' });
    const manager = bearer((await issueToken(t, user.id)).token);
    const hash = createHash('sha256').update(r.key!).digest();
    const shown = [
      (await t.http().get('/api/redemptions').query({ search: r.code, limit: 10 }).set(manager).expect(200)).body,
      (await t.http().get('/api/redemptions').query({ search: r.body.email, limit: 10 }).set(manager).expect(200)).body,
      (await t.http().get(`/api/redemptions/${r.id}`).set(manager).expect(200)).body,
      (await t.http().get(`/api/redemptions/${r.id}/history`).set(manager).expect(200)).body,
    ];
    const listed = shown[0].redemptions.find((x: { id: string }) => x.id === r.id);
    expect(listed).toMatchObject({ voucherCode: { code: r.code }, customer: { email: r.body.email } });
    for (const body of shown) {
      const text = JSON.stringify(body);
      for (const secret of [r.key!, hash.toString('hex'), hash.toString('base64'), r.token]) {
        expect(text).not.toContain(secret);
      }
      expect(text).not.toMatch(/idempotency/i);
    }
    // What the manager read is not enough for a success page.
    const replay = await redeem(
      redeemBody({ voucherCode: listed.voucherCode.code, email: listed.customer.email }),
    ).expect(409);
    expect(replay.body).toEqual({ statusCode: 409, message: USED, error: 'Conflict' });
    expect(await stateOf(r.code)).toMatchObject({ tokens: 1 });
  });
});
