import { Clock } from '../backend/src/common/clock';
import { TestApp } from './helpers/app';
import { addLicenseKey, PRODUCTS, randomCode } from './helpers/factories';
import {
  ACCESS_ANSWER,
  CENTRE_PUBLIC_URL,
  LicenceCentre,
  licenceCentreClient,
  startLicenceCentre,
} from './helpers/licence-centre';
import { eventually } from './helpers/redemptions';
import { TestSmtpServer } from './helpers/smtp';

const LINK_EXPIRED = 'This sign-in link has expired. Please request a new one.';
const ACCESS_LIMITED = {
  statusCode: 429,
  message: 'Too many sign-in link requests from your address. Please try again later.',
  error: 'Too Many Requests',
};

/**
 * Issue 28, the licence centre (docs/product.md §21), through the real API on PostgreSQL with a real
 * SMTP server: the sign-in link read from the delivered e-mail, its limits, the customer's routes and their refusals.
 * The data export and the erasure: test/customer-erasure.e2e-spec.ts.
 */
describe('licence centre: sign-in link, licences, resend, refusals', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Record<string, string>;
  let windows: string;
  let mac: string;

  let centre: LicenceCentre | undefined;

  beforeAll(async () => {
    centre = await startLicenceCentre('Centre', {
      REDEEM_GUESS_LIMIT: '4',
      BLOCKED_IP_CACHE_MS: '0',
      PUBLIC_URL: `${CENTRE_PUBLIC_URL}/`,
    });
    ({ t, smtp, admin, windows, mac } = centre);
  });
  afterAll(() => centre?.close());
  afterEach(() => jest.restoreAllMocks());

  const { newIp, messagesTo, redeem, askLink, linkFromMail, session, signIn } = licenceCentreClient(
    () => t,
    () => smtp,
  );

  it('sends a link only to an address with licences; the link opens a 24-hour session once, within 30 minutes', async () => {
    const email = `link.${randomCode('e').toLowerCase()}@example.com`;
    await redeem(mac, { email });
    const unknown = `nobody.${randomCode('e').toLowerCase()}@example.com`;
    const before = smtp.messages.length;

    const answers = [await askLink(` ${email.toUpperCase()} `, newIp()), await askLink(unknown, newIp())];
    for (const a of answers) expect([a.status, a.body]).toEqual([202, ACCESS_ANSWER]);
    const { url, token } = await linkFromMail(email, 1);
    expect(url).toBe(`https://licences.example.com/my-licences?token=${token}`);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(messagesTo(unknown)).toHaveLength(0);
    // The stranger's request wrote an outbox row like the customer's; its job deleted it.
    await eventually(
      async () => !(await t.db.query(`SELECT 1 FROM customer_access_links WHERE email = $1`, [unknown])).length,
      10_000,
      "the stranger's row deleted",
    );
    // Only the token's hash is stored (the row settles just after the message is accepted).
    await eventually(
      async () =>
        (await t.db.query(`SELECT 1 FROM customer_access_links WHERE email = $1 AND status = 'sent'`, [email])).length,
      10_000,
      'sent',
    );
    const [link] = await t.db.query(
      `SELECT token_hash, status, round(extract(epoch FROM expires_at - sent_at) / 60)::int AS minutes FROM customer_access_links WHERE email = $1`,
      [email],
    );
    expect(link.token_hash.toString('hex')).not.toContain(Buffer.from(token).toString('hex'));
    expect(link.status).toBe('sent');
    expect(link.minutes).toBe(30);

    const opened = await session(token).expect(200);
    expect(opened.body).toEqual({ customerToken: expect.any(String), email, expiresAt: expect.any(String) });
    const hours = (new Date(opened.body.expiresAt).getTime() - Date.now()) / 3_600_000;
    expect(hours).toBeGreaterThan(23.9);
    expect(hours).toBeLessThanOrEqual(24);
    // Spent: the same link again is refused.
    const spent = await session(token).expect(401);
    expect(spent.body).toEqual({ statusCode: 401, message: LINK_EXPIRED, error: 'Unauthorized' });
    await session('not-a-real-token-at-all').expect(401);
    expect(smtp.messages.slice(before).filter((m) => m.subject?.startsWith('Sign in'))).toHaveLength(1);

    // A second link, left 31 minutes: expired.
    await askLink(email, newIp()).expect(202);
    const late = await linkFromMail(email, 2);
    await t.db.query(
      `UPDATE customer_access_links SET expires_at = now() - interval '1 minute' WHERE email = $1 AND used_at IS NULL`,
      [email],
    );
    expect((await session(late.token).expect(401)).body.message).toBe(LINK_EXPIRED);
  });

  it('sends at most 3 links per address per hour, the 4th answered the same', async () => {
    const email = `limit.${randomCode('e').toLowerCase()}@example.com`;
    await redeem(mac, { email });
    for (let n = 1; n <= 4; n++) await askLink(email, newIp()).expect(202, ACCESS_ANSWER);
    await linkFromMail(email, 3);
    // The jobs decide: three links go out, the fourth row is deleted; each decision is on record.
    const audit = await eventually(
      async () => {
        const rows = await t.db.query(
          `SELECT action, ip_address FROM security_audit_log WHERE action LIKE 'customer.access-link%' AND resource_id = (SELECT id::text FROM customers WHERE email = $1) ORDER BY created_at`,
          [email],
        );
        return rows.length === 4 && rows;
      },
      10_000,
      'four decisions',
    );
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM customer_access_links WHERE email = $1`, [email]);
    expect(n).toBe(3);
    // Written by the job, which knows no request: no client address on record.
    expect(audit.map((a: { ip_address: string | null }) => a.ip_address)).toEqual([null, null, null, null]);
    expect(audit.map((a: { action: string }) => a.action)).toEqual([
      'customer.access-link',
      'customer.access-link',
      'customer.access-link',
      'customer.access-link-limit',
    ]);
    // An hour later the customer may ask again.
    await t.db.query(
      `UPDATE customer_access_links SET created_at = created_at - interval '61 minutes' WHERE email = $1`,
      [email],
    );
    await askLink(email, newIp()).expect(202);
    await linkFromMail(email, 4);
  });

  it('answers the same after a customer as after a stranger: every request counts in a budget of its own', async () => {
    const customer = `target.${randomCode('e').toLowerCase()}@example.com`;
    await redeem(mac, { email: customer });
    // The budget is REDEEM_GUESS_LIMIT requests per address group (4 here): with the default of 20, the review's
    // "19 unknown addresses, then the target, then any request".
    const limit = t.config.redeemGuessLimit;
    const sequence = async (target: string) => {
      const ip = newIp();
      const answers = [];
      for (let i = 1; i < limit; i++) {
        answers.push(await askLink(`probe.${i}.${randomCode('p').toLowerCase()}@x.test`, ip));
      }
      answers.push(await askLink(target, ip));
      answers.push(await askLink(`any.${randomCode('a').toLowerCase()}@example.com`, ip));
      return { ip, answers: answers.map((a) => [a.status, a.body]) };
    };
    const afterCustomer = await sequence(customer);
    const afterStranger = await sequence(`stranger.${randomCode('e').toLowerCase()}@example.com`);
    expect(afterCustomer.answers).toEqual(afterStranger.answers);
    expect(afterCustomer.answers).toEqual([...Array(limit).fill([202, ACCESS_ANSWER]), [429, ACCESS_LIMITED]]);
    await linkFromMail(customer, 1);
    // Its own budget: neither address is blocked for guessing codes, the rest of the API still answers them.
    const ips = [afterCustomer.ip, afterStranger.ip];
    expect(await t.db.query(`SELECT ip_address FROM blocked_ips WHERE ip_address = ANY($1)`, [ips])).toEqual([]);
    for (const ip of ips) await t.http().get('/api/public-config').set('X-Forwarded-For', ip).expect(200);
  });

  it('lists the customer’s licences newest first with keys in clear, resends only their own, refuses staff tokens', async () => {
    const email = `list.${randomCode('e').toLowerCase()}@example.com`;
    const key = `CENTRE-${randomCode('K')}`;
    await addLicenseKey(t.db, windows, key);
    const first = await redeem(windows, { email });
    const second = await redeem(mac, { email });
    const stranger = await redeem(mac, {});
    const customer = await signIn(email);

    const res = await t.http().get('/api/customer/licences').set(customer).expect(200);
    expect(res.body).toEqual([
      expect.objectContaining({
        redemptionId: second.id,
        voucherCode: second.code,
        productName: PRODUCTS.homeBusinessMac,
        isManualProcessing: false,
      }),
      {
        redemptionId: first.id,
        productName: expect.stringContaining('Centre'),
        voucherCode: first.code,
        redeemedAt: expect.any(String),
        licenseKey: key,
        downloadLink: 'https://downloads.example.com/office2024.exe',
        // Not a Mac product: no package links (docs/product.md §12.7).
        activationLink: null,
        removalToolLink: null,
        isManualProcessing: false,
        heldForReview: false,
        refundedAt: null,
        emailStatus: expect.stringMatching(/pending|sent/),
      },
    ]);

    // Resend: their own redemption sends the order e-mail again; another's is 404 and sends nothing.
    await eventually(
      async () => messagesTo(email).filter((m) => !m.subject?.startsWith('Sign in')).length >= 2,
      20_000,
      'order e-mails',
    );
    await t.http().post(`/api/customer/licences/${first.id}/resend`).set(customer).expect(202);
    // The licence-managed product's order e-mail (subject "Your licence", test/helpers/factories.ts), a second time.
    await eventually(
      async () => messagesTo(email).filter((m) => m.subject === 'Your licence').length >= 2,
      20_000,
      'resent e-mail',
    );
    // Every order e-mail ends with the licence centre's address.
    for (const m of messagesTo(email).filter((m) => !m.subject?.startsWith('Sign in'))) {
      expect(m.text).toContain('All your licences, any time: https://licences.example.com/my-licences');
    }
    const other = await t.http().post(`/api/customer/licences/${stranger.id}/resend`).set(customer).expect(404);
    expect(other.body.message).toBe('Redemption not found');
    await t.http().post(`/api/customer/licences/not-a-uuid/resend`).set(customer).expect(404);
    const [{ attempts }] = await t.db.query(`SELECT email_attempts AS attempts FROM redemptions WHERE id = $1`, [
      stranger.id,
    ]);
    expect(attempts).toBe(1);
    // The resend limit is the self-service one: 3 per redemption per 24 hours, then silence.
    for (let i = 0; i < 3; i++) {
      await t.http().post(`/api/customer/licences/${first.id}/resend`).set(customer).expect(202);
    }
    const audit = await t.db.query(
      `SELECT success FROM security_audit_log WHERE action = 'redemption.customer-resend' AND resource_id = $1 ORDER BY created_at`,
      [first.id],
    );
    expect(audit.map((a: { success: boolean }) => a.success)).toEqual([true, true, true, false]);

    // A staff token on a customer route, a customer token on staff routes: 401.
    await t.http().get('/api/customer/licences').set(admin).expect(401);
    await t.http().get('/api/customer/licences').expect(401);
    await t.http().get('/api/redemptions').set(customer).expect(401);
    await t.http().get('/api/admin/me').set(customer).expect(401);
    // A customer token expired (fixed clock 24 h and 1 minute on): refused.
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(new Date(Date.now() - 24 * 3_600_000 - 60_000));
    const stale = await signIn(email);
    jest.restoreAllMocks();
    await t.http().get('/api/customer/licences').set(stale).expect(401);
  });

  it('shows a refunded licence without key, download or resend; the data export keeps the key as stored', async () => {
    const email = `refunded.${randomCode('e').toLowerCase()}@example.com`;
    const key = `CENTRE-${randomCode('K')}`;
    await addLicenseKey(t.db, windows, key);
    const refunded = await redeem(windows, { email });
    const customer = await signIn(email);
    const before = await t.http().get('/api/customer/licences').set(customer).expect(200);
    expect(before.body).toEqual([expect.objectContaining({ licenseKey: key, refundedAt: null })]);

    const voided = await t
      .http()
      .post(`/api/products/${windows}/voucher-codes/void`)
      .set(admin)
      .send({ codes: [refunded.code] })
      .expect(200);
    const [{ refundedAt }] = voided.body.refundedAfterRedemption;
    const after = await t.http().get('/api/customer/licences').set(customer).expect(200);
    expect(after.body).toEqual([
      expect.objectContaining({
        redemptionId: refunded.id,
        refundedAt,
        licenseKey: null,
        downloadLink: '',
        activationLink: null,
        removalToolLink: null,
      }),
    ]);
    expect(JSON.stringify(after.body)).not.toContain(key);
    const data = await t.http().get('/api/customer/data').set(customer).expect(200);
    expect(data.body.redemptions).toEqual([expect.objectContaining({ licenseKey: key, refundedAt })]);
  });
});
