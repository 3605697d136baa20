import { execFile } from 'child_process';
import { promisify } from 'util';
import { Clock } from '../backend/src/common/clock';
import { JobHandlers } from '../backend/src/modules/jobs/job-handlers.service';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, addLicenseKey, licenseManagedProduct, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { MISMATCHES_SQL } from './helpers/counters';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';

const run = promisify(execFile);
/** Six random letters: names must be letters, and must be unique enough to grep a dump for. */
const letters = () => Array.from({ length: 6 }, () => 'abcdefghijklmnopqrstuvwxyz'[Math.floor(Math.random() * 26)]).join('');
const ACCESS_ANSWER = { message: 'If licences were issued to this e-mail address, a sign-in link is on its way.' };
const LINK_EXPIRED = 'This sign-in link has expired. Please request a new one.';
const GUESS_MESSAGE = 'Too many invalid voucher codes. Please contact support.';

/**
 * Issue 28, the licence centre (docs/product.md "Licence centre", "Your data", "Erasure"), through the real API on
 * PostgreSQL with a real SMTP server: the sign-in link read from the delivered e-mail, the customer's routes and
 * their refusals, the data export, and an erasure after which a pg_dump holds no trace of the customer while the
 * counters and statistics are what they were.
 */
describe('licence centre: sign-in link, licences, data export, erasure', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Record<string, string>;
  let windows: string;
  let mac: string;
  let nextAddress = 1;
  const newIp = () => `203.0.113.${nextAddress++}`;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({
      SMTP_URL: smtp.url,
      TRUST_PROXY: 'loopback',
      GEO_BLOCKED_COUNTRIES: '',
      REDEEM_GUESS_LIMIT: '4',
      BLOCKED_IP_CACHE_MS: '0',
      PUBLIC_URL: 'https://licences.example.com/',
      ...RECEIVERS_ON_LOOPBACK,
    });
    admin = bearer(await tokenFor(t, 'admin'));
    windows = await licenseManagedProduct(t.db, `Centre ${randomCode('P')}`);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(async () => {
    await t?.close();
    await smtp?.close();
  });
  afterEach(() => jest.restoreAllMocks());

  const messagesTo = (email: string) => smtp.messages.filter((m) => JSON.stringify(m.to ?? '').includes(email));
  const redeem = async (product: string, body: Partial<ReturnType<typeof redeemBody>>, ip = '198.51.100.10') => {
    const [code] = await addCodes(t.db, product, [randomCode('LC')]);
    await t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode: code, ...body })).expect(201);
    const [row] = await t.db.query(`SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`, [code]);
    return { code, id: row.id as string };
  };
  const askLink = (email: string, ip = '198.51.100.20') =>
    t.http().post('/api/customer/access').set('X-Forwarded-For', ip).send({ email });
  /** The token of the newest sign-in link e-mail to `email`, read from the delivered message. */
  async function linkFromMail(email: string, count: number): Promise<{ url: string; token: string }> {
    await eventually(async () => messagesTo(email).filter((m) => m.subject?.startsWith('Sign in')).length >= count, 20_000, `link ${count} to ${email}`);
    const mail = messagesTo(email).filter((m) => m.subject?.startsWith('Sign in'))[count - 1];
    const url = /https:\/\/licences\.example\.com\/my-licences\?token=([A-Za-z0-9_-]+)/.exec(mail.text ?? '');
    if (!url) throw new Error(`no link in ${mail.text}`);
    return { url: url[0], token: url[1] };
  }
  const session = (token: string) => t.http().post('/api/customer/session').send({ token });
  async function signIn(email: string): Promise<Record<string, string>> {
    const before = messagesTo(email).filter((m) => m.subject?.startsWith('Sign in')).length;
    await askLink(email, newIp()).expect(202, ACCESS_ANSWER);
    const { token } = await linkFromMail(email, before + 1);
    const res = await session(token).expect(200);
    return bearer(res.body.customerToken);
  }

  it('sends a link only to an address with licences; the link opens a 24-hour session once, within 30 minutes', async () => {
    const email = `link.${randomCode('e').toLowerCase()}@example.com`;
    await redeem(mac, { email });
    const unknown = `nobody.${randomCode('e').toLowerCase()}@example.com`;
    const before = smtp.messages.length;

    const answers = [await askLink(` ${email.toUpperCase()} `), await askLink(unknown)];
    for (const a of answers) expect([a.status, a.body]).toEqual([202, ACCESS_ANSWER]);
    const { url, token } = await linkFromMail(email, 1);
    expect(url).toBe(`https://licences.example.com/my-licences?token=${token}`);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    expect(messagesTo(unknown)).toHaveLength(0);
    // Only the token's hash is stored (the row settles just after the message is accepted).
    await eventually(async () => (await t.db.query(`SELECT 1 FROM customer_access_links WHERE email = $1 AND status = 'sent'`, [email])).length, 10_000, 'sent');
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
    await askLink(email).expect(202);
    const late = await linkFromMail(email, 2);
    await t.db.query(`UPDATE customer_access_links SET expires_at = now() - interval '1 minute' WHERE email = $1 AND used_at IS NULL`, [email]);
    expect((await session(late.token).expect(401)).body.message).toBe(LINK_EXPIRED);
  });

  it('sends at most 3 links per address per hour, the 4th answered the same', async () => {
    const email = `limit.${randomCode('e').toLowerCase()}@example.com`;
    await redeem(mac, { email });
    for (let n = 1; n <= 4; n++) await askLink(email, newIp()).expect(202, ACCESS_ANSWER);
    await linkFromMail(email, 3);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM customer_access_links WHERE email = $1`, [email]);
    expect(n).toBe(3);
    const audit = await t.db.query(
      `SELECT action FROM security_audit_log WHERE action LIKE 'customer.access-link%' AND resource_id = (SELECT id::text FROM customers WHERE email = $1) ORDER BY created_at`,
      [email],
    );
    expect(audit.map((a: { action: string }) => a.action)).toEqual([
      'customer.access-link',
      'customer.access-link',
      'customer.access-link',
      'customer.access-link-limit',
    ]);
    // An hour later the customer may ask again.
    await t.db.query(`UPDATE customer_access_links SET created_at = created_at - interval '61 minutes' WHERE email = $1`, [email]);
    await askLink(email).expect(202);
    await linkFromMail(email, 4);
  });

  it('counts addresses without licences towards the code-guessing block', async () => {
    const ip = newIp();
    for (let i = 0; i < 4; i++) await askLink(`guess.${i}.${randomCode('g').toLowerCase()}@example.com`, ip).expect(202);
    const blocked = await askLink('another@example.com', ip).expect(429);
    expect(blocked.body.message).toBe(GUESS_MESSAGE);
    const [row] = await t.db.query(`SELECT reason FROM blocked_ips WHERE ip_address = $1`, [ip]);
    expect(row.reason).toMatch(/unknown voucher codes/);
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
      expect.objectContaining({ redemptionId: second.id, voucherCode: second.code, productName: PRODUCTS.homeBusinessMac, isManualProcessing: false }),
      {
        redemptionId: first.id,
        productName: expect.stringContaining('Centre'),
        voucherCode: first.code,
        redeemedAt: expect.any(String),
        licenseKey: key,
        downloadLink: 'https://downloads.example.com/office2024.exe',
        isManualProcessing: false,
        emailStatus: expect.stringMatching(/pending|sent/),
      },
    ]);

    // Resend: their own redemption sends the order e-mail again; another's is 404 and sends nothing.
    await eventually(async () => messagesTo(email).filter((m) => !m.subject?.startsWith('Sign in')).length >= 2, 20_000, 'order e-mails');
    await t.http().post(`/api/customer/licences/${first.id}/resend`).set(customer).expect(202);
    // The licence-managed product's order e-mail (subject "Your licence", test/helpers/factories.ts), a second time.
    await eventually(async () => messagesTo(email).filter((m) => m.subject === 'Your licence').length >= 2, 20_000, 'resent e-mail');
    // Every order e-mail ends with the licence centre's address.
    for (const m of messagesTo(email).filter((m) => !m.subject?.startsWith('Sign in'))) {
      expect(m.text).toContain('All your licences, any time: https://licences.example.com/my-licences');
    }
    const other = await t.http().post(`/api/customer/licences/${stranger.id}/resend`).set(customer).expect(404);
    expect(other.body.message).toBe('Redemption not found');
    await t.http().post(`/api/customer/licences/not-a-uuid/resend`).set(customer).expect(404);
    const [{ attempts }] = await t.db.query(`SELECT email_attempts AS attempts FROM redemptions WHERE id = $1`, [stranger.id]);
    expect(attempts).toBe(1);
    // The resend limit is the self-service one: 3 per redemption per 24 hours, then silence.
    for (let i = 0; i < 3; i++) await t.http().post(`/api/customer/licences/${first.id}/resend`).set(customer).expect(202);
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

  it('exports, then erases: the dump holds no trace of the customer and the figures do not change', async () => {
    const email = `erase.${randomCode('e').toLowerCase()}@example.com`;
    const firstName = `Zelda${letters()}`;
    const lastName = `Quirrel${letters()}`;
    const phone = '+1 302 555 0199';
    await addLicenseKey(t.db, windows, `ERASE-${randomCode('K')}`);
    const ip = '198.51.100.77';
    const a = await redeem(windows, { email, firstName, lastName, phone }, ip);
    const b = await redeem(mac, { email, firstName, lastName: `${lastName}B`, phone }, ip);
    await eventually(async () => messagesTo(email).length >= 2, 20_000, 'order e-mails');
    // A webhook receiver subscribed to customer.erased.
    const receiver = await startReceiver();
    await t.http().post('/api/webhooks').set(admin).send({ url: receiver.url, events: ['customer.erased'] }).expect(201);

    const customer = await signIn(email);
    await t.http().post(`/api/customer/licences/${a.id}/resend`).set(customer).set('User-Agent', 'ZeldaBrowser/1.0').expect(202);
    const stats = async () => (await t.http().get('/api/stats/alltime').set(admin).expect(200)).body;
    const products = async () => (await t.http().get('/api/products').set(admin).expect(200)).body;
    const [statsBefore, productsBefore] = [await stats(), await products()];
    const [{ n: redemptionsBefore }] = await t.db.query(`SELECT count(*)::int AS n FROM redemptions`);

    // The data export: an attachment with everything as given.
    const data = await t.http().get('/api/customer/data').set(customer).expect(200);
    expect(data.headers['content-disposition']).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"$/);
    expect(data.body.customer).toEqual({ id: expect.any(String), email, createdAt: expect.any(String) });
    expect(data.body.redemptions.map((r: { redemptionId: string }) => r.redemptionId)).toEqual([b.id, a.id]);
    expect(data.body.redemptions[1]).toMatchObject({ voucherCode: a.code, firstName, lastName, phone, ipAddress: ip, licenseKey: expect.stringMatching(/^ERASE-/) });
    expect(data.body.redemptions[0].lastName).toBe(`${lastName}B`);
    expect(data.body.redemptions[1].history.map((e: { type: string }) => e.type)).toEqual(expect.arrayContaining(['redeemed', 'email-sent', 'email-resent']));
    expect(data.body.emailsSent.filter((e: { subject: string }) => e.subject.startsWith('Sign in'))).toHaveLength(1);
    expect(data.body.emailsSent.filter((e: { redemptionId: string }) => e.redemptionId === b.id)).toEqual([expect.objectContaining({ recipient: email, status: 'sent' })]);

    // Erasure: refused without the confirmation, then done.
    await t.http().post('/api/customer/erasure').set(customer).send({}).expect(400);
    await t.http().post('/api/customer/erasure').set(admin).send({ confirm: true }).expect(401);
    const sentBefore = messagesTo(email).length;
    const erased = await t.http().post('/api/customer/erasure').set(customer).send({ confirm: true }).expect(202);
    expect(erased.body.message).toMatch(/deleted/);
    const confirmation = messagesTo(email).slice(sentBefore);
    expect(confirmation.map((m) => m.subject)).toEqual([expect.stringMatching(/^Your personal data has been deleted/)]);

    // The session ends; the redemptions stay, erased, and staff see when.
    await t.http().get('/api/customer/licences').set(customer).expect(401);
    await t.http().get('/api/customer/data').set(customer).expect(401);
    const view = await t.http().get(`/api/redemptions/${a.id}`).set(admin).expect(200);
    expect(view.body.erasedAt).toEqual(expect.any(String));
    expect(view.body.customer).toMatchObject({ firstName: '', lastName: '', email: '', phone: null, zipCode: null, country: null });
    expect(view.body.voucherCode.code).toBe(a.code);
    expect(view.body.assignedLicenseKey.licenseKey).toMatch(/^ERASE-/);
    // The list still finds it by its code.
    const found = await t.http().get('/api/redemptions').query({ search: a.code }).set(admin).expect(200);
    expect(found.body.redemptions.map((r: { id: string; erasedAt: string }) => [r.id, !!r.erasedAt])).toEqual([[a.id, true]]);
    const history = await t.http().get(`/api/redemptions/${a.id}/history`).set(admin).expect(200);
    expect(history.body.events.map((e: { type: string }) => e.type)).toContain('erased');
    expect(JSON.stringify(history.body)).not.toContain(email);
    const audit = await t.db.query(`SELECT details, ip_address, user_agent FROM security_audit_log WHERE action = 'customer.erasure'`);
    expect(audit).toEqual([expect.objectContaining({ ip_address: null, user_agent: null, details: expect.objectContaining({ redemptions: 2, confirmationSent: true }) })]);

    // Counts and statistics are what they were; the counters still equal count(*).
    const [{ n: redemptionsAfter }] = await t.db.query(`SELECT count(*)::int AS n FROM redemptions`);
    expect(redemptionsAfter).toBe(redemptionsBefore);
    expect(await stats()).toEqual(statsBefore);
    expect(await products()).toEqual(productsBefore);
    expect(await t.db.query(MISMATCHES_SQL)).toEqual([]);

    // The webhook: ids and time, no personal data.
    const delivery = await eventually(async () => receiver.received.map((h) => h.body).find((body) => body.includes('customer.erased')), 20_000, 'webhook');
    expect(JSON.parse(delivery).data).toEqual({ customerId: expect.any(String), redemptionIds: expect.arrayContaining([a.id, b.id]), erasedAt: expect.any(String) });
    expect(delivery).not.toContain(email);
    await receiver.close();

    // No trace in a dump of the whole database: not the address, the names, the phone, the IP or the user agent.
    const dump = (await run('pg_dump', ['--no-owner', '--data-only', t.database.url], { maxBuffer: 256 * 1024 * 1024 })).stdout;
    expect(dump).toContain(a.code);
    for (const trace of [email, firstName, lastName, phone, ip, 'ZeldaBrowser']) expect([trace, dump.includes(trace)]).toEqual([trace, false]);

    // A later redemption with the address starts afresh: a new customer row, the same product allowed again.
    const again = await redeem(windows, { email, firstName: 'New', lastName: 'Start' });
    const rows = await t.db.query(`SELECT c.id, c.email, c.erased_at FROM redemptions r JOIN customers c ON c.id = r.customer_id WHERE r.id = ANY($1::uuid[]) ORDER BY c.email NULLS FIRST`, [[a.id, again.id]]);
    expect(rows).toEqual([
      { id: expect.any(String), email: null, erased_at: expect.any(Date) },
      { id: expect.any(String), email, erased_at: null },
    ]);
    // Retention keeps working on erased rows: past the limit, the erased redemptions and their customer go.
    await t.db.query(`UPDATE redemptions SET redeemed_at = redeemed_at - interval '3000 days' WHERE id = ANY($1::uuid[])`, [[a.id, b.id]]);
    await t.db.query(`UPDATE customers SET created_at = created_at - interval '3000 days' WHERE id = $1`, [rows[0].id]);
    // Sign-in links go a day after they were asked for.
    const [oldLink] = await t.db.query(`INSERT INTO customer_access_links (email, created_at) VALUES ('old@example.com', now() - interval '25 hours') RETURNING id`);
    const [newLink] = await t.db.query(`INSERT INTO customer_access_links (email, status) VALUES ('new@example.com', 'failed') RETURNING id`);
    await t.app.get(JobHandlers).runRetention();
    expect(await t.db.query(`SELECT id FROM customer_access_links WHERE id = ANY($1::uuid[])`, [[oldLink.id, newLink.id]])).toEqual([{ id: newLink.id }]);
    expect(await t.db.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[])`, [[a.id, b.id]])).toEqual([]);
    expect(await t.db.query(`SELECT id FROM customers WHERE id = $1`, [rows[0].id])).toEqual([]);
    expect(await t.db.query(MISMATCHES_SQL)).toEqual([]);

    // Settings → Privacy requests: the link, the export and the erasure, without personal data.
    const requests = await t.http().get('/api/admin/privacy-requests').set(admin).expect(200);
    const mine = requests.body.requests.filter((r: { customerId: string }) => r.customerId === rows[0].id);
    expect(mine.map((r: { kind: string }) => r.kind)).toEqual(['erasure', 'data-export', 'link-sent']);
    expect(mine[0].redemptions).toBe(2);
    expect(JSON.stringify(requests.body)).not.toContain(email);
    await t.http().get('/api/admin/privacy-requests').set(bearer(await tokenFor(t, 'operator'))).expect(403);
  });
});
