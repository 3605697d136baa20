import { Clock } from '../backend/src/common/clock';
import { PoolJobs } from '../backend/src/modules/pool/pool.job';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, tokenFor } from './helpers/auth';
import { storeRedemption } from './helpers/admin-data';
import { addLicenseKey, licenseManagedProduct, randomCode } from './helpers/factories';
import { eventually, redeemNew } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** Midday UTC, so "today" is the same day in the test's time zone (TZ unset: UTC) however long the test runs. */
const NOW = new Date('2031-03-10T12:00:00.000Z');

describe('licence pool forecast and low-pool alerts (docs/product.md §20.2)', () => {
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: string;
  let clock: jest.SpyInstance<Date, []>;

  beforeAll(async () => {
    smtp = await startSmtpServer();
    t = await startTestApp({ SMTP_URL: smtp.url, POOL_ALERT_MIN: '3', POOL_ALERT_DAYS: '7', ...RECEIVERS_ON_LOOPBACK });
    admin = await tokenFor(t, 'admin');
  });
  afterAll(async () => {
    await t.close();
    await smtp.close();
  });
  beforeEach(() => {
    clock = jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(NOW));
  });
  afterEach(() => jest.restoreAllMocks());

  const productName = async (id: string): Promise<string> =>
    (await t.db.query(`SELECT name FROM products WHERE id = $1`, [id]))[0].name;
  const alertsOf = (name: string) => smtp.messages.filter((m) => m.subject === `Licence pool low: ${name}`);
  const recipients = (name: string) =>
    alertsOf(name)
      .map((m) => (m.to as { text: string }).text)
      .sort();
  const forecastOf = async (id: string) => {
    const res = await t.http().get('/api/license-pool/forecast').set(bearer(admin)).expect(200);
    return res.body.find((f: { productId: string }) => f.productId === id);
  };
  /** Redemptions written straight to the table at the given times before NOW. */
  const seedRedemptions = async (product: string, agesMs: number[]) => {
    for (const age of agesMs) {
      await storeRedemption(t, { product, code: randomCode('FC'), redeemedAt: new Date(NOW.getTime() - age) });
    }
  };

  it('forecasts each licence-managed product from its last 7 days of redemptions, with whole days left', async () => {
    const busy = await licenseManagedProduct(t.db, `Forecast busy ${randomCode()}`);
    await addLicenseKey(t.db, busy, randomCode('VOL'), { maxActivations: 45 });
    await addLicenseKey(t.db, busy, randomCode('OFF'), { maxActivations: 100, active: false });
    // 14 inside the window (2 a day), the oldest one a minute inside; two outside it (and one in the future of NOW).
    await seedRedemptions(busy, [...Array.from({ length: 13 }, (_, i) => (i + 1) * 11 * HOUR), 7 * DAY - 60_000]);
    await seedRedemptions(busy, [7 * DAY + 60_000, 30 * DAY]);
    const quiet = await licenseManagedProduct(t.db, `Forecast quiet ${randomCode()}`);
    await addLicenseKey(t.db, quiet, randomCode('SGL'));
    await seedRedemptions(quiet, [8 * DAY]);
    const slow = await licenseManagedProduct(t.db, `Forecast slow ${randomCode()}`);
    await addLicenseKey(t.db, slow, randomCode('VOL'), { maxActivations: 10 });
    await seedRedemptions(slow, [DAY, 2 * DAY, 3 * DAY]);

    expect(await forecastOf(busy)).toEqual({
      productId: busy,
      productName: await productName(busy),
      availableActivations: 45,
      redeemedLast7Days: 14,
      perDay: 2,
      daysLeft: 22,
      low: false,
      lowReason: null,
      waitingCustomers: 0,
    });
    // Nothing redeemed in the window: no rate, no days; 1 activation is under POOL_ALERT_MIN (3).
    expect(await forecastOf(quiet)).toMatchObject({
      availableActivations: 1,
      redeemedLast7Days: 0,
      perDay: 0,
      daysLeft: null,
      low: true,
      lowReason: 'fewer than 3 activations available (POOL_ALERT_MIN)',
    });
    // 10 activations at 3/7 a day: 23.33 days, told as 23.
    expect(await forecastOf(slow)).toMatchObject({
      availableActivations: 10,
      redeemedLast7Days: 3,
      perDay: 0.43,
      daysLeft: 23,
      low: false,
    });

    // A product nobody sells yet (no voucher codes uploaded, redeemed or void) is never low, even with no key at all.
    const unused = await licenseManagedProduct(t.db, `Forecast unused ${randomCode()}`);
    expect(await forecastOf(unused)).toMatchObject({
      availableActivations: 0,
      daysLeft: null,
      low: false,
      lowReason: null,
    });

    // A day later the oldest redemption of `busy` has left the window: 13 in 7 days.
    clock.mockImplementation(() => new Date(NOW.getTime() + DAY));
    expect(await forecastOf(busy)).toMatchObject({ redeemedLast7Days: 13, daysLeft: 24 });
  });

  it('lists only licence-managed products, for every dashboard role', async () => {
    const shopManager = await tokenFor(t, 'shop-manager');
    const res = await t.http().get('/api/license-pool/forecast').set(bearer(shopManager)).expect(200);
    const managed: Array<{ id: string }> = await t.db.query(`SELECT id FROM products WHERE is_license_managed`);
    expect(res.body.map((f: { productId: string }) => f.productId).sort()).toEqual(managed.map((p) => p.id).sort());
  });

  it('alerts every active admin with an e-mail once per product per day when a redemption crosses the line', async () => {
    const product = await licenseManagedProduct(t.db, `Alert ${randomCode()}`);
    const name = await productName(product);
    for (let i = 0; i < 4; i++) await addLicenseKey(t.db, product, randomCode('SGL'));
    const activeAdmin = await createAdminUser(t, { role: 'admin' });
    const operator = await createAdminUser(t, { role: 'operator' });
    const inactive = await createAdminUser(t, { role: 'admin' });
    await t.db.query(`UPDATE admin_users SET is_active = false WHERE id = $1`, [inactive.id]);
    const noEmail = await createAdminUser(t, { role: 'admin' });
    await t.db.query(`UPDATE admin_users SET email = '' WHERE id = $1`, [noEmail.id]);
    const admins: Array<{ email: string }> = await t.db.query(
      `SELECT email FROM admin_users WHERE role = 'admin' AND is_active AND email <> '' ORDER BY email`,
    );
    const expected = admins.map((a) => a.email).sort();
    expect(expected).toContain(`${activeAdmin.username}@example.com`);
    expect(expected).not.toContain(`${operator.username}@example.com`);
    expect(expected).not.toContain(`${inactive.username}@example.com`);

    // A receiver of pool.low (nothing listens there: the event's outbox row is what is counted).
    const hook = await t
      .http()
      .post('/api/webhooks')
      .set(bearer(admin))
      .send({ url: 'http://127.0.0.1:9/pool', events: ['pool.low'] })
      .expect(201);
    const poolLowEvents = async () => {
      const rows: Array<{ data: { productId: string; availableActivations: number } }> = await t.db.query(
        `SELECT payload AS data FROM webhook_deliveries WHERE endpoint_id = $1 AND event = 'pool.low'`,
        [hook.body.id],
      );
      return rows.filter((r) => r.data.productId === product);
    };

    // 4 activations, POOL_ALERT_MIN 3: the first redemption leaves 3 (not under the line), the second crosses it.
    // Only one check a minute runs per product, so the two redemptions are a minute apart on the Clock.
    const handlers = t.app.get(PoolJobs);
    await redeemNew(t, product);
    expect(await handlers.check(product)).toBe(0);
    const first = t.app.get(Clock).now();
    clock.mockImplementation(() => new Date(first.getTime() + 61_000));
    await redeemNew(t, product);
    clock.mockImplementation(() => new Date(first));
    await eventually(async () => alertsOf(name).length >= expected.length, 20_000, 'the alert e-mails');
    expect(recipients(name)).toEqual(expected);
    expect(alertsOf(name)[0].text).toContain('2 activations available');
    const logged = await eventually(async () => {
      const rows: Array<{ recipient: string; status: string }> = await t.db.query(
        `SELECT recipient, status FROM email_logs WHERE subject = $1 ORDER BY recipient`,
        [`Licence pool low: ${name}`],
      );
      return rows.length === expected.length && rows;
    });
    expect(logged).toEqual(expected.map((recipient) => ({ recipient, status: 'sent' })));
    await eventually(
      async () => {
        const rows: Array<{ status: string }> = await t.db.query(
          `SELECT status FROM pool_alerts WHERE product_id = $1`,
          [product],
        );
        return rows.every((r) => r.status === 'sent');
      },
      20_000,
      'the alerts marked sent',
    );

    // The same day: the daily check and further checks alert no one again (rows are written before any job is queued).
    await handlers.check(null);
    expect(await handlers.check(product)).toBe(0);
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM pool_alerts WHERE product_id = $1`, [product]);
    expect(n).toBe(expected.length);
    expect(alertsOf(name)).toHaveLength(expected.length);
    // pool.low went out once that day, with the forecast that raised it.
    expect((await poolLowEvents()).map((e) => e.data.availableActivations)).toEqual([2]);

    // The next day it is still low: one more alert each.
    clock.mockImplementation(() => new Date(NOW.getTime() + DAY));
    expect(await handlers.check(product)).toBe(expected.length);
    await eventually(async () => alertsOf(name).length >= 2 * expected.length, 20_000, "the next day's alerts");
    expect(recipients(name)).toEqual([...expected, ...expected].sort());
    expect(await poolLowEvents()).toHaveLength(2);
    await t.http().delete(`/api/webhooks/${hook.body.id}`).set(bearer(admin)).expect(200);
  });

  it('checks the pool when Fix Pending Emails hands out its keys', async () => {
    const product = await licenseManagedProduct(t.db, `Fix pending ${randomCode()}`);
    const name = await productName(product);
    // Every active admin with an address gets each day's alert (other tests of this file may have added some).
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM admin_users WHERE role = 'admin' AND is_active AND email <> ''`,
    );
    // No key: the redemption waits, and its own check finds the pool empty (that day's alerts, one per admin).
    await redeemNew(t, product);
    await eventually(async () => alertsOf(name).length === n, 20_000, 'the empty pool’s alerts');
    const today = alertsOf(name).length;

    // The next day 3 activations arrive (not under POOL_ALERT_MIN); the waiting redemption takes one of them.
    clock.mockImplementation(() => new Date(NOW.getTime() + DAY));
    await addLicenseKey(t.db, product, randomCode('VOL'), { maxActivations: 3 });
    expect(await forecastOf(product)).toMatchObject({ availableActivations: 3, low: false });
    const fix = await t.http().post('/api/admin/fix-pending-emails').set(bearer(admin)).expect(200);
    expect(fix.body.assignedCount).toBeGreaterThanOrEqual(1);
    await eventually(async () => alertsOf(name).length === 2 * today, 20_000, 'the alerts after Fix Pending Emails');
    for (const alert of alertsOf(name).slice(today)) expect(alert.text).toContain('2 activations available');
  });

  it('alerts when fewer days of keys are left than POOL_ALERT_DAYS, from the daily check', async () => {
    const product = await licenseManagedProduct(t.db, `Days ${randomCode()}`);
    const name = await productName(product);
    await addLicenseKey(t.db, product, randomCode('VOL'), { maxActivations: 12 });
    await seedRedemptions(
      product,
      Array.from({ length: 14 }, (_, i) => (i + 1) * 11 * HOUR),
    );
    expect(await forecastOf(product)).toMatchObject({
      availableActivations: 12,
      daysLeft: 6,
      low: true,
      lowReason: "fewer than 7 days of keys left at the last 7 days' rate (POOL_ALERT_DAYS)",
    });
    expect(await t.app.get(PoolJobs).check(null)).toBeGreaterThan(0);
    await eventually(async () => alertsOf(name).length > 0, 20_000, 'the alert');
    expect(alertsOf(name)[0].text).toContain('≈ 6 days of keys left');
  });

  it('sends an alert whose job was lost when the sweep finds it pending', async () => {
    const product = await licenseManagedProduct(t.db, `Lost ${randomCode()}`);
    const [user] = await t.db.query(`SELECT id, email FROM admin_users WHERE username = 'admin'`);
    await t.db.query(
      `INSERT INTO pool_alerts (product_id, admin_user_id, alert_day, recipient, product_name, available_activations,
                                redeemed_last_7_days, days_left, created_at)
       VALUES ($1, $2, '2031-03-10', $3, 'Lost product', 0, 0, NULL, now() - interval '1 hour')`,
      [product, user.id, user.email],
    );
    await t.app.get(PoolJobs).sweep();
    await eventually(async () => alertsOf('Lost product').length === 1, 20_000, 'the swept alert');
    const row = await eventually(async () => {
      const [r] = await t.db.query(`SELECT status, attempts FROM pool_alerts WHERE product_id = $1`, [product]);
      return r.status !== 'pending' && r;
    });
    expect(row).toEqual({ status: 'sent', attempts: 1 });
  });
});
