import { Clock } from '../backend/src/common/clock';
import { startTestApp, TestApp } from './helpers/app';
import { createProduct, storeRedemption } from './helpers/admin-data';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes } from './helpers/factories';

const NOW = new Date('2026-03-15T10:00:00Z');

describe('GET /api/stats/:period (server time zone UTC, clock fixed at 2026-03-15 10:00Z)', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  let p: string;
  let q: string;

  beforeAll(async () => {
    t = await startTestApp({ TZ: 'UTC' });
    auth = bearer(await tokenFor(t, 'admin'));
    jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(NOW);
    p = await createProduct(t, auth, { name: 'Stats P' });
    q = await createProduct(t, auth, { name: 'Stats Q' });
    const at: Array<[string, string]> = [
      [q, '2026-03-15T09:00:00Z'],
      [p, '2026-03-15T00:00:00Z'],
      [p, '2026-03-14T23:59:59Z'],
      [p, '2026-03-14T12:00:00Z'],
      [p, '2026-03-09T00:00:00Z'],
      [p, '2026-03-08T23:00:00Z'],
      [p, '2026-03-01T00:00:00Z'],
      [p, '2026-02-28T23:00:00Z'],
      [q, '2026-02-10T00:00:00Z'],
      [q, '2026-01-31T12:00:00Z'],
    ];
    for (const [i, [product, when]] of at.entries()) {
      await storeRedemption(t, { product, code: `ST-${i}`, redeemedAt: new Date(when) });
    }
    await addCodes(t.db, p, ['ST-FREE-1', 'ST-FREE-2', 'ST-FREE-3']);
    await addCodes(t.db, q, ['ST-FREE-4', 'ST-FREE-5']);
  });
  afterAll(async () => {
    jest.restoreAllMocks();
    await t.close();
  });

  const stats = async (period?: string) =>
    (
      await t
        .http()
        .get(period ? `/api/stats/${period}` : '/api/stats')
        .set(auth)
        .expect(200)
    ).body;
  const ofProduct = (body: { productStats: Array<{ productId: string }> }, id: string) =>
    body.productStats.find((s) => s.productId === id);

  it.each([
    ['today', 2, 1, 1, 'Today'],
    ['yesterday', 2, 2, 0, 'Yesterday'],
    ['last7days', 5, 4, 1, 'Last 7 Days'],
    ['last30days', 8, 7, 1, 'Last 30 Days'],
    ['thismonth', 7, 6, 1, 'This Month'],
    ['lastmonth', 2, 1, 1, 'Last Month'],
    ['alltime', 10, 7, 3, 'All Time'],
  ])('%s: %i redemptions (P %i, Q %i)', async (period, total, inP, inQ, label) => {
    const body = await stats(period);
    expect(body.totalRedemptions).toBe(total);
    expect(body.timeRange).toBe(label);
    expect(body.activeVouchers).toBe(5);
    expect(ofProduct(body, p)).toEqual({
      productId: p,
      productName: 'Stats P',
      activeCodes: 3,
      redeemedCodes: inP,
      voidCodes: 0,
    });
    expect(ofProduct(body, q)).toEqual({
      productId: q,
      productName: 'Stats Q',
      activeCodes: 2,
      redeemedCodes: inQ,
      voidCodes: 0,
    });
    expect(body.dailyRedemptions.reduce((sum: number, d: { count: number }) => sum + d.count, 0)).toBe(total);
  });

  it('gives period bounds and one chart entry per day, zero days included', async () => {
    const week = await stats('last7days');
    expect(week).toMatchObject({
      period: 'last7days',
      from: '2026-03-09T00:00:00.000Z',
      to: '2026-03-16T00:00:00.000Z',
      timeZone: 'UTC',
    });
    expect(week.dailyRedemptions).toEqual([
      { date: '2026-03-09', count: 1 },
      { date: '2026-03-10', count: 0 },
      { date: '2026-03-11', count: 0 },
      { date: '2026-03-12', count: 0 },
      { date: '2026-03-13', count: 0 },
      { date: '2026-03-14', count: 2 },
      { date: '2026-03-15', count: 2 },
    ]);
    expect((await stats('yesterday')).dailyRedemptions).toEqual([{ date: '2026-03-14', count: 2 }]);
    const month = await stats('thismonth');
    expect(month.dailyRedemptions).toHaveLength(15);
    expect(month.dailyRedemptions[0]).toEqual({ date: '2026-03-01', count: 1 });
    const last = await stats('lastmonth');
    expect(last).toMatchObject({ from: '2026-02-01T00:00:00.000Z', to: '2026-03-01T00:00:00.000Z' });
    expect(last.dailyRedemptions).toHaveLength(28);
  });

  it('GET /api/stats is all time, charted from the first redemption day to today', async () => {
    const body = await stats();
    expect(body).toMatchObject({ period: 'alltime', totalRedemptions: 10, from: null, to: null });
    expect(body.dailyRedemptions[0]).toEqual({ date: '2026-01-31', count: 1 });
    expect(body.dailyRedemptions.at(-1)).toEqual({ date: '2026-03-15', count: 2 });
    expect(body.dailyRedemptions).toHaveLength(44);
  });

  it('refuses an unknown period', async () => {
    const res = await t.http().get('/api/stats/lastyear').set(auth).expect(400);
    expect(res.body.message).toBe(
      'Unknown period "lastyear". Use one of: today, yesterday, last7days, last30days, thismonth, lastmonth, alltime.',
    );
  });
});

/**
 * An app in New York time (clock fixed at 06:00 EDT on 15 March; DST began on 8 March 2026) on a fresh database of
 * its own, with three redemptions around the local day and month bounds.
 */
async function newYorkApp() {
  const t = await startTestApp({ TZ: 'America/New_York' });
  const auth = bearer(await tokenFor(t, 'admin'));
  jest.spyOn(t.app.get(Clock), 'now').mockReturnValue(NOW);
  const product = await createProduct(t, auth, { name: 'Stats NY' });
  await storeRedemption(t, { product, code: 'NY-1', redeemedAt: new Date('2026-03-15T05:00:00Z') }); // 01:00 EDT today
  await storeRedemption(t, { product, code: 'NY-2', redeemedAt: new Date('2026-03-15T02:00:00Z') }); // 22:00 EDT yesterday
  await storeRedemption(t, { product, code: 'NY-3', redeemedAt: new Date('2026-03-01T04:30:00Z') }); // 23:30 EST 28 Feb
  return { t, auth };
}

describe('GET /api/stats/:period in a server time zone with daylight saving (America/New_York)', () => {
  afterEach(() => jest.restoreAllMocks());

  it('counts local days and months', async () => {
    const { t, auth } = await newYorkApp();
    try {
      const today = (await t.http().get('/api/stats/today').set(auth).expect(200)).body;
      expect(today).toMatchObject({
        totalRedemptions: 1,
        from: '2026-03-15T04:00:00.000Z',
        to: '2026-03-16T04:00:00.000Z',
      });
      const yesterday = (await t.http().get('/api/stats/yesterday').set(auth).expect(200)).body;
      expect(yesterday.totalRedemptions).toBe(1);
      const thisMonth = (await t.http().get('/api/stats/thismonth').set(auth).expect(200)).body;
      // The month began at local midnight, still EST (UTC-5).
      expect(thisMonth).toMatchObject({ totalRedemptions: 2, from: '2026-03-01T05:00:00.000Z' });
      const lastMonth = (await t.http().get('/api/stats/lastmonth').set(auth).expect(200)).body;
      expect(lastMonth.totalRedemptions).toBe(1);
      expect(lastMonth.dailyRedemptions.at(-1)).toEqual({ date: '2026-02-28', count: 1 });
    } finally {
      await t.close();
    }
  });

  // Its own database: the UTC instance rebuilds the day counters in UTC, which New York's counts must not see.
  it('counts the new local days when TIME_ZONE changes (the day counters are rebuilt at start-up)', async () => {
    const ny = await newYorkApp();
    const utc = await startTestApp({ TZ: 'UTC' }, { database: ny.t.database });
    try {
      jest.spyOn(utc.app.get(Clock), 'now').mockReturnValue(NOW);
      const utcAuth = bearer(await tokenFor(utc, 'admin'));
      const stats = async (period: string) =>
        (await utc.http().get(`/api/stats/${period}`).set(utcAuth).expect(200)).body;
      // In UTC, NY-1 (05:00Z) and NY-2 (02:00Z) are both on 15 March, NY-3 (04:30Z) on 1 March.
      expect((await stats('today')).totalRedemptions).toBe(2);
      expect((await stats('yesterday')).totalRedemptions).toBe(0);
      expect((await stats('thismonth')).totalRedemptions).toBe(3);
      expect((await stats('lastmonth')).totalRedemptions).toBe(0);
      const [{ time_zone }] = await utc.db.query(`SELECT time_zone FROM stats_settings`);
      expect(time_zone).toBe('UTC');
    } finally {
      await utc.close();
      await ny.t.close();
    }
  });
});
