import { execFile } from 'child_process';
import { promisify } from 'util';
import { RetentionJob } from '../backend/src/modules/retention/retention.job';
import { TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { MISMATCHES_SQL } from './helpers/counters';
import { addLicenseKey, randomCode } from './helpers/factories';
import { LicenceCentre, letters, licenceCentreClient, startLicenceCentre } from './helpers/licence-centre';
import { eventually } from './helpers/redemptions';
import { TestSmtpServer } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';
import { moveRedemptions } from './helpers/counted-sql';

const run = promisify(execFile);

/**
 * Issue 28, "Your data" and "Erasure" (docs/product.md) through the real API, job queue, SMTP server and a webhook
 * receiver: the data export as given, then an erasure after which a pg_dump holds no trace of the customer while the
 * counters and statistics are what they were; what staff see afterwards; a later redemption starting afresh;
 * retention on erased rows; Settings → Privacy requests.
 */
describe('licence centre: data export and erasure', () => {
  let t: TestApp;
  let smtp: TestSmtpServer;
  let admin: Record<string, string>;
  let windows: string;
  let mac: string;

  let centre: LicenceCentre | undefined;

  beforeAll(async () => {
    centre = await startLicenceCentre('Erase', RECEIVERS_ON_LOOPBACK);
    ({ t, smtp, admin, windows, mac } = centre);
  });
  afterAll(() => centre?.close());

  const { messagesTo, redeem, signIn } = licenceCentreClient(
    () => t,
    () => smtp,
  );

  it('exports, then erases: the dump holds no trace of the customer and the figures do not change', async () => {
    const email = `erase.${randomCode('e').toLowerCase()}@example.com`;
    const firstName = `Zelda${letters()}`;
    const lastName = `Quirrel${letters()}`;
    const phone = '+1 302 555 0199';
    await addLicenseKey(t.db, windows, `ERASE-${randomCode('K')}`);
    // The customer's address, in both forms the audit log has stored it: the address and its group (an IPv6 /64).
    const ip = '2001:db8:77:1::5';
    const ipGroup = '2001:db8:77:1::/64';
    const a = await redeem(windows, { email, firstName, lastName, phone }, ip);
    const b = await redeem(mac, { email, firstName, lastName: `${lastName}B`, phone }, ip);
    await eventually(async () => messagesTo(email).length >= 2, 20_000, 'order e-mails');
    // A webhook receiver subscribed to customer.erased.
    const receiver = await startReceiver();
    await t
      .http()
      .post('/api/webhooks')
      .set(admin)
      .send({ url: receiver.url, events: ['customer.erased'] })
      .expect(201);

    const customer = { ...(await signIn(email, ip)), 'X-Forwarded-For': ip };
    await t
      .http()
      .post(`/api/customer/licences/${a.id}/resend`)
      .set(customer)
      .set('User-Agent', 'ZeldaBrowser/1.0')
      .expect(202);
    // A staff export filtered by the address: its audit row keeps the search.
    await t.http().get('/api/export/redeemed-vouchers').query({ format: 'csv', search: email }).set(admin).expect(200);
    const stats = async () => (await t.http().get('/api/stats/alltime').set(admin).expect(200)).body;
    const products = async () => (await t.http().get('/api/products').set(admin).expect(200)).body;
    const [statsBefore, productsBefore] = [await stats(), await products()];
    const [{ n: redemptionsBefore }] = await t.db.query(`SELECT count(*)::int AS n FROM redemptions`);

    // The data export: an attachment with everything as given.
    const data = await t.http().get('/api/customer/data').set(customer).expect(200);
    expect(data.headers['content-disposition']).toMatch(/^attachment; filename="my-data-\d{4}-\d{2}-\d{2}\.json"$/);
    // The customer row as stored (its details are the first redemption's), even where no redemption repeats them.
    expect(data.body.customer).toEqual({
      id: expect.any(String),
      email,
      firstName,
      lastName,
      phone,
      country: null,
      zipCode: null,
      ipAddress: ip,
      createdAt: expect.any(String),
    });
    expect(data.body.redemptions.map((r: { redemptionId: string }) => r.redemptionId)).toEqual([b.id, a.id]);
    expect(data.body.redemptions[1]).toMatchObject({
      voucherCode: a.code,
      firstName,
      lastName,
      phone,
      ipAddress: ip,
      licenseKey: expect.stringMatching(/^ERASE-/),
    });
    expect(data.body.redemptions[0].lastName).toBe(`${lastName}B`);
    expect(data.body.redemptions[1].history.map((e: { type: string }) => e.type)).toEqual(
      expect.arrayContaining(['redeemed', 'email-sent', 'email-resent']),
    );
    expect(data.body.emailsSent.filter((e: { subject: string }) => e.subject.startsWith('Sign in'))).toHaveLength(1);
    expect(data.body.emailsSent.filter((e: { redemptionId: string }) => e.redemptionId === b.id)).toEqual([
      expect.objectContaining({ recipient: email, status: 'sent' }),
    ]);

    // The customer's requests are on record with the address, never with its group: no limit counts them.
    const onRecord = await t.db.query(
      `SELECT action, ip_group FROM security_audit_log WHERE ip_address = $1 ORDER BY created_at`,
      [ip],
    );
    expect(onRecord).toEqual([
      { action: 'redemption.customer-resend', ip_group: null },
      { action: 'customer.data-export', ip_group: null },
    ]);

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
    expect(view.body.customer).toMatchObject({
      firstName: '',
      lastName: '',
      email: '',
      phone: null,
      zipCode: null,
      country: null,
    });
    expect(view.body.voucherCode.code).toBe(a.code);
    expect(view.body.assignedLicenseKey.licenseKey).toMatch(/^ERASE-/);
    // The list still finds it by its code.
    const found = await t
      .http()
      .get('/api/redemptions')
      .query({ search: a.code, showExported: 'true' })
      .set(admin)
      .expect(200);
    expect(found.body.redemptions.map((r: { id: string; erasedAt: string }) => [r.id, !!r.erasedAt])).toEqual([
      [a.id, true],
    ]);
    // Never by the name it was given: neither the full name (idx_redemptions_name_list holds the erased ' ') nor a
    // word's start or a part of it (docs/product.md §11.12).
    for (const search of [`${firstName} ${lastName}`, firstName, lastName.slice(2)]) {
      const byName = await t
        .http()
        .get('/api/redemptions')
        .query({ search, showExported: 'true' })
        .set(admin)
        .expect(200);
      expect([search, byName.body.pagination.totalCount]).toEqual([search, 0]);
    }
    const history = await t.http().get(`/api/redemptions/${a.id}/history`).set(admin).expect(200);
    expect(history.body.events.map((e: { type: string }) => e.type)).toContain('erased');
    expect(JSON.stringify(history.body)).not.toContain(email);
    const audit = await t.db.query(
      `SELECT details, ip_address, user_agent FROM security_audit_log WHERE action = 'customer.erasure'`,
    );
    expect(audit).toEqual([
      expect.objectContaining({
        ip_address: null,
        user_agent: null,
        details: expect.objectContaining({ redemptions: 2, confirmationSent: true }),
      }),
    ]);
    expect(
      await t.db.query(`SELECT action FROM security_audit_log WHERE ip_address = $1 OR ip_group = $2`, [ip, ipGroup]),
    ).toEqual([]);

    // Counts and statistics are what they were; the counters still equal count(*).
    const [{ n: redemptionsAfter }] = await t.db.query(`SELECT count(*)::int AS n FROM redemptions`);
    expect(redemptionsAfter).toBe(redemptionsBefore);
    expect(await stats()).toEqual(statsBefore);
    expect(await products()).toEqual(productsBefore);
    expect(await t.db.query(MISMATCHES_SQL)).toEqual([]);

    // The webhook: ids and time, no personal data.
    const delivery = await eventually(
      async () => receiver.received.map((h) => h.body).find((body) => body.includes('customer.erased')),
      20_000,
      'webhook',
    );
    expect(JSON.parse(delivery).data).toEqual({
      customerId: expect.any(String),
      redemptionIds: expect.arrayContaining([a.id, b.id]),
      erasedAt: expect.any(String),
    });
    expect(delivery).not.toContain(email);
    await receiver.close();

    // No trace in a dump of the whole database: not the address, the names, the phone, the IP or the user agent.
    const dump = (await run('pg_dump', ['--no-owner', '--data-only', t.database.url], { maxBuffer: 256 * 1024 * 1024 }))
      .stdout;
    expect(dump).toContain(a.code);
    for (const trace of [email, firstName, lastName, phone, ip, ipGroup, '2001:db8:77:1:', 'ZeldaBrowser']) {
      expect([trace, dump.includes(trace)]).toEqual([trace, false]);
    }

    // A later redemption with the address starts afresh: a new customer row, the same product allowed again.
    const again = await redeem(windows, { email, firstName: 'New', lastName: 'Start' });
    const rows = await t.db.query(
      `SELECT c.id, c.email, c.erased_at FROM redemptions r JOIN customers c ON c.id = r.customer_id WHERE r.id = ANY($1::uuid[]) ORDER BY c.email NULLS FIRST`,
      [[a.id, again.id]],
    );
    expect(rows).toEqual([
      { id: expect.any(String), email: null, erased_at: expect.any(Date) },
      { id: expect.any(String), email, erased_at: null },
    ]);
    // Retention keeps working on erased rows: past the limit, the erased redemptions and their customer go.
    await moveRedemptions(t.db, `r.redeemed_at - interval '3000 days'`, `r.id = ANY($1::uuid[])`, [[a.id, b.id]]);
    await t.db.query(`UPDATE customers SET created_at = created_at - interval '3000 days' WHERE id = $1`, [rows[0].id]);
    // Sign-in links go a day after they were asked for.
    const [oldLink] = await t.db.query(
      `INSERT INTO customer_access_links (email, created_at) VALUES ('old@example.com', now() - interval '25 hours') RETURNING id`,
    );
    const [newLink] = await t.db.query(
      `INSERT INTO customer_access_links (email, status) VALUES ('new@example.com', 'failed') RETURNING id`,
    );
    await t.app.get(RetentionJob).run();
    expect(
      await t.db.query(`SELECT id FROM customer_access_links WHERE id = ANY($1::uuid[])`, [[oldLink.id, newLink.id]]),
    ).toEqual([{ id: newLink.id }]);
    expect(await t.db.query(`SELECT id FROM redemptions WHERE id = ANY($1::uuid[])`, [[a.id, b.id]])).toEqual([]);
    expect(await t.db.query(`SELECT id FROM customers WHERE id = $1`, [rows[0].id])).toEqual([]);
    expect(await t.db.query(MISMATCHES_SQL)).toEqual([]);

    // Settings → Privacy requests: the link, the export and the erasure, without personal data.
    const requests = await t.http().get('/api/admin/privacy-requests').set(admin).expect(200);
    const mine = requests.body.requests.filter((r: { customerId: string }) => r.customerId === rows[0].id);
    expect(mine.map((r: { kind: string }) => r.kind)).toEqual(['erasure', 'data-export', 'link-sent']);
    expect(mine[0].redemptions).toBe(2);
    expect(JSON.stringify(requests.body)).not.toContain(email);
    await t
      .http()
      .get('/api/admin/privacy-requests')
      .set(bearer(await tokenFor(t, 'operator')))
      .expect(403);
  });
});
