import { Client } from 'pg';
import { Clock } from '../backend/src/common/clock';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { bearer } from './helpers/auth';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { CENTRE_PUBLIC_URL, licenceCentreClient } from './helpers/licence-centre';
import { PgCluster, removeAllClusters, startPrimary } from './helpers/pg-cluster';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

const MINUTE = 60_000;
const realNow = Date.now.bind(Date);

/**
 * Issue 55: the app's clock 5 minutes off the database's, both ways, across midnight. The database is a private
 * cluster (test/helpers/pg-cluster.ts) whose clock libfaketime sets just before (app ahead) or just after (app
 * behind) a UTC midnight; the app's process clock (Date.now, which jsonwebtoken reads, and the injected Clock) runs
 * 5 minutes from it, so the two are on different days for the whole suite. Tokens, limits and the statistics'
 * days work as with one clock: a redemption made now is in today's statistics, on the database's day, the one that
 * stamps it.
 */
describe.each([
  { direction: 'ahead of', skewMs: 5 * MINUTE, databaseFromMidnightMs: -2.5 * MINUTE },
  { direction: 'behind', skewMs: -5 * MINUTE, databaseFromMidnightMs: 10_000 },
])("clock skew: the app's clock 5 minutes $direction the database's", ({ skewMs, databaseFromMidnightMs }) => {
  jest.setTimeout(60_000);
  let cluster: PgCluster;
  let smtp: TestSmtpServer;
  let t: TestApp;
  let admin: Record<string, string>;
  const centre = licenceCentreClient(
    () => t,
    () => smtp,
  );

  beforeAll(async () => {
    const now = realNow();
    const nextMidnight = Math.ceil(now / 86_400_000) * 86_400_000;
    const databaseOffset = nextMidnight + databaseFromMidnightMs - now;
    cluster = await startPrimary({ clockOffsetSeconds: databaseOffset / 1000 });
    const setup = new Client({ connectionString: cluster.url() });
    await setup.connect();
    await setup.query('CREATE DATABASE ovr_skew');
    await setup.end();
    // The app's process, from its start: its clock 5 minutes off the database's.
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + databaseOffset + skewMs);
    jest.spyOn(Clock.prototype, 'now').mockImplementation(() => new Date(Date.now()));
    smtp = await startSmtpServer();
    t = await startTestApp(
      {
        SMTP_URL: smtp.url,
        PUBLIC_URL: CENTRE_PUBLIC_URL,
        TRUST_PROXY: 'loopback',
        GEO_BLOCKED_COUNTRIES: '',
        TIME_ZONE: 'UTC',
        REDEEM_RATE_LIMIT: '3',
        REDEEM_GUESS_LIMIT: '3',
      },
      { database: { name: 'ovr_skew', url: cluster.url('ovr_skew'), drop: async () => undefined } },
    );
    const login = await t
      .http()
      .post('/api/admin/login')
      .set('X-Forwarded-For', '192.0.2.1')
      .send({ username: 'admin', password: TEST_ADMIN_PASSWORD })
      .expect(200);
    admin = bearer(login.body.accessToken);
  });

  afterAll(async () => {
    try {
      await t?.close();
      await smtp?.close();
    } finally {
      await removeAllClusters();
      jest.restoreAllMocks();
    }
  });

  /** The database's and the app's UTC dates now: different ones throughout (checked by every test). */
  const dates = async () => {
    const [{ day }] = await t.db.query(`SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day`);
    const skew = (await t.db.query(`SELECT extract(epoch FROM now()) * 1000 AS ms`))[0].ms - Date.now();
    return { database: day as string, app: new Date(Date.now()).toISOString().slice(0, 10), skew };
  };
  const expectDifferentDays = async () => {
    const { database, app, skew } = await dates();
    expect(app).not.toBe(database);
    expect(Math.abs(skew + skewMs)).toBeLessThan(MINUTE);
  };

  it("counts a redemption made now in today's statistics, on the database's day", async () => {
    await expectDifferentDays();
    const product = await licenseManagedProduct(t.db, `Skew ${randomCode('P')}`);
    await addLicenseKey(t.db, product, `SKW-${randomCode('K')}`);
    await centre.redeem(product, {}, '198.51.100.31');
    const { database } = await dates();

    const today = await t.http().get('/api/stats/today').set(admin).expect(200);
    expect(today.body.productStats.find((p: { productId: string }) => p.productId === product)).toMatchObject({
      redeemedCodes: 1,
    });
    expect(today.body.dailyRedemptions).toEqual([{ date: database, count: today.body.totalRedemptions }]);
    expect(today.body.from.slice(0, 10)).toBe(database);
    const week = await t.http().get('/api/stats/last7days').set(admin).expect(200);
    expect(week.body.dailyRedemptions.at(-1).date).toBe(database);
    await expectDifferentDays();
  });

  it('accepts the tokens it issues: access and refresh tokens, success pages, sign-in links, customer sessions', async () => {
    await expectDifferentDays();
    // The admin's access token (a JWT of 15 minutes) works, and its refresh token rotates.
    await t.http().get('/api/admin/me').set(admin).expect(200);
    const login = await t
      .http()
      .post('/api/admin/login')
      .set('X-Forwarded-For', '192.0.2.2')
      .send({ username: 'admin', password: TEST_ADMIN_PASSWORD })
      .expect(200);
    const refreshed = await t
      .http()
      .post('/api/admin/refresh')
      .send({ refreshToken: login.body.refreshToken })
      .expect(200);
    await t.http().get('/api/admin/me').set(bearer(refreshed.body.accessToken)).expect(200);
    await t.http().post('/api/admin/refresh').send({ refreshToken: refreshed.body.refreshToken }).expect(200);

    // The customer's success page, the sign-in link from the e-mail and the session it opens.
    const product = await licenseManagedProduct(t.db, `Skew ${randomCode('P')}`);
    await addLicenseKey(t.db, product, `SKW-${randomCode('K')}`);
    const [code] = await addCodes(t.db, product, [randomCode('SKW')]);
    const email = `skew.${randomCode('E').toLowerCase()}@example.com`;
    const redeemed = await t
      .http()
      .post('/api/redeem-voucher')
      .set('X-Forwarded-For', '198.51.100.32')
      .send(redeemBody({ voucherCode: code, email }))
      .expect(201);
    const page = await t.http().get(`/api/success-token/${redeemed.body.successToken}`).expect(200);
    expect(page.body.licenseKey).toMatch(/^SKW-/);
    const customer = await centre.signIn(email);
    const licences = await t.http().get('/api/customer/licences').set(customer).expect(200);
    expect(JSON.stringify(licences.body)).toContain(page.body.licenseKey);
    await expectDifferentDays();
  });

  it('holds the limits at exactly their counts: redemptions per address, unknown codes per address', async () => {
    await expectDifferentDays();
    const product = await licenseManagedProduct(t.db, `Skew ${randomCode('P')}`);
    const codes = await addCodes(
      t.db,
      product,
      Array.from({ length: 5 }, () => randomCode('SKW')),
    );
    for (let i = 0; i < 5; i++) await addLicenseKey(t.db, product, `SKW-${randomCode('K')}`);
    const redeem = (voucherCode: string, ip: string) =>
      t.http().post('/api/redeem-voucher').set('X-Forwarded-For', ip).send(redeemBody({ voucherCode }));
    // REDEEM_RATE_LIMIT = 3 a minute per address: the fourth is refused.
    const statuses: number[] = [];
    for (const code of codes.slice(0, 4)) statuses.push((await redeem(code, '198.51.100.33')).status);
    expect(statuses).toEqual([201, 201, 201, 429]);
    // REDEEM_GUESS_LIMIT = 3 unknown codes per address: then the address is blocked, a valid code too.
    const guesses: number[] = [];
    for (let i = 0; i < 4; i++) guesses.push((await redeem(randomCode('NONE'), '198.51.100.34')).status);
    expect(guesses).toEqual([404, 404, 404, 429]);
    expect((await redeem(codes[4], '198.51.100.34')).status).toBe(429);
    await expectDifferentDays();
  });
});
