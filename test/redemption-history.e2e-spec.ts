import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken, TestAdmin, tokenFor } from './helpers/auth';
import { addLicenseKey, licenseManagedProduct, randomCode } from './helpers/factories';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

interface HistoryEvent {
  at: string;
  type: string;
  actor: string | null;
  description: string;
  provider: string | null;
  error: string | null;
  licenseKey: string | null;
}

const KEY = 'ABCDE-FGHIJ-KLMNO-PQRST-UVWXY';

describe('redemption history (docs/product.md §20.3)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: string;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url });
    admin = await tokenFor(t, 'admin');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });

  const signedIn = async (role: string): Promise<TestAdmin & { auth: { Authorization: string } }> => {
    const user = await createAdminUser(t, { role });
    return { ...user, auth: bearer((await issueToken(t, user.id)).token) };
  };
  const history = async (id: string, auth = bearer(admin)) =>
    (await t.http().get(`/api/redemptions/${id}/history`).set(auth).expect(200)).body as {
      redemptionId: string;
      exists: boolean;
      events: HistoryEvent[];
    };
  const logCount = async (id: string): Promise<number> =>
    (await t.db.query(`SELECT count(*)::int AS n FROM email_logs WHERE redemption_id = $1`, [id]))[0].n;

  it('tells a manual assignment, a resend and an export in order, with who acted', async () => {
    const product = await licenseManagedProduct(t.db, `History ${randomCode()}`);
    const operator = await signedIn('operator');
    const resender = await signedIn('admin');
    const exporter = await signedIn('operator');
    const r = await redeemNew(t, product); // no pool key: waits for a manual one

    await t
      .http()
      .post(`/api/redemptions/${r.id}/assign-license`)
      .set(operator.auth)
      .send({ licenseKey: KEY, downloadLink: 'https://dl.example.com/office.exe' })
      .expect(200);
    await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 20_000, 'the order e-mail');
    await t.http().post(`/api/redemptions/${r.id}/resend-email`).set(resender.auth).expect(200);
    await eventually(
      async () => (await logCount(r.id)) === 2 && (await emailStatus(t, r.id)) === 'sent',
      20_000,
      'the resent e-mail',
    );
    await t
      .http()
      .post('/api/export/selected-redemptions')
      .set(exporter.auth)
      .send({ redemptionIds: [r.id], format: 'csv' })
      .expect(200);

    const { events, exists } = await history(r.id);
    expect(exists).toBe(true);
    expect(events.map((e) => [e.type, e.actor])).toEqual([
      ['redeemed', 'Customer'],
      ['key-assigned', operator.username],
      ['email-queued', 'System'],
      ['email-sent', 'System'],
      ['email-resent', resender.username],
      ['email-queued', 'System'],
      ['email-sent', 'System'],
      ['exported', exporter.username],
    ]);
    const times = events.map((e) => Date.parse(e.at));
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(events[0].description).toBe(`Voucher ${r.code} redeemed by ${r.email}`);
    expect(events[1]).toMatchObject({ description: 'License key assigned by hand', licenseKey: KEY });
    expect(events[3]).toMatchObject({
      provider: 'primary',
      error: null,
      description: `E-mail sent to ${r.email} via primary`,
    });
    expect(events[7].description).toBe('Exported (selected-redemptions)');
    const [{ exported_at }] = await t.db.query(`SELECT exported_at FROM redemptions WHERE id = $1`, [r.id]);
    expect(Date.parse(events[7].at)).toBe(new Date(exported_at).getTime());

    // A shop manager sees the history with the key masked (no licenses.view).
    const masked = await history(r.id, bearer(await tokenFor(t, 'shop-manager')));
    expect(masked.events.find((e) => e.type === 'key-assigned')?.licenseKey).toBe('ABCDE-•••••-•••••-•••••-UVWXY');

    // Deleted: the audit trail and the e-mail log still tell, and the deletion with who did it.
    const deleter = await signedIn('admin');
    await t.http().delete(`/api/redemptions/${r.id}`).set(deleter.auth).expect(200);
    const after = await history(r.id);
    expect(after.exists).toBe(false);
    expect(after.events.map((e) => [e.type, e.actor])).toEqual([
      ['key-assigned', operator.username],
      ['email-sent', 'System'],
      ['email-resent', resender.username],
      ['email-queued', 'System'],
      ['email-sent', 'System'],
      ['deleted', deleter.username],
    ]);
    expect(after.events[0].description).toBe('License key ending in UVWXY assigned by hand');
  });

  it('tells a pool key handed out with the redemption as the system’s', async () => {
    const product = await licenseManagedProduct(t.db, `History pool ${randomCode()}`);
    await addLicenseKey(t.db, product, 'POOLA-POOLB-POOLC-POOLD-POOLE');
    const r = await redeemNew(t, product);
    await eventually(async () => (await emailStatus(t, r.id)) === 'sent', 20_000, 'the order e-mail');
    const { events } = await history(r.id);
    expect(events.map((e) => [e.type, e.actor, e.description])).toEqual([
      ['redeemed', 'Customer', `Voucher ${r.code} redeemed by ${r.email}`],
      ['key-assigned', 'System', 'License key assigned from the pool'],
      ['email-queued', 'System', 'Order e-mail queued with the license key'],
      ['email-sent', 'System', `E-mail sent to ${r.email} via primary`],
    ]);
    expect(events[1].licenseKey).toBe('POOLA-POOLB-POOLC-POOLD-POOLE');
  });

  it('tells who gave a volume key to several redemptions, on each of them', async () => {
    const product = await licenseManagedProduct(t.db, `History bulk ${randomCode()}`);
    const operator = await signedIn('operator');
    const [a, b] = [await redeemNew(t, product), await redeemNew(t, product)]; // no pool key: both wait
    await t
      .http()
      .post('/api/redemptions/bulk-assign-license')
      .set(operator.auth)
      .send({ redemptionIds: [a.id, b.id], licenseKey: KEY, downloadLink: 'https://dl.example.com/office.exe' })
      .expect(200);
    for (const r of [a, b]) {
      const { events } = await history(r.id);
      expect(events.filter((e) => e.type === 'key-assigned').map((e) => [e.actor, e.description])).toEqual([
        [operator.username, 'License key assigned by hand'],
      ]);
    }
    // The row that tells it belongs to both through its list; a row about one redemption names it.
    const [bulk] = await t.db.query(
      `SELECT redemption_id, details -> 'redemptionIds' AS ids FROM security_audit_log
        WHERE action = 'redemption.bulk-assign-license' AND details -> 'redemptionIds' ? $1`,
      [a.id],
    );
    expect(bulk).toEqual({ redemption_id: null, ids: expect.arrayContaining([a.id, b.id]) });
  });

  it('answers 404 for a redemption it knows nothing of', async () => {
    for (const id of ['00000000-0000-4000-8000-000000000000', 'not-a-uuid']) {
      const res = await t.http().get(`/api/redemptions/${id}/history`).set(bearer(admin)).expect(404);
      expect(res.body.message).toBe('Redemption not found');
    }
  });
});
