import { startTestApp, TestApp } from './helpers/app';
import { addLicenseKey, licenseManagedProduct, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { watchJobs } from './helpers/jobs';
import { redeemNew } from './helpers/redemptions';

const TOKEN = 'metrics-token-for-the-tests-0123';

/** The value of one series in a Prometheus text exposition (undefined when absent). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    const m = /^([a-z_:]+)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const got = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => got[k] === v)) return Number(m[3]);
  }
  return undefined;
}

/** GET /metrics (docs/product.md §20.5): the token gate, the redemption counter, the gauges read from the database. */
describe('GET /metrics', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ GEO_BLOCKED_COUNTRIES: '', METRICS_TOKEN: TOKEN });
  });
  afterAll(() => t?.close());

  const scrape = async () => {
    const res = await t.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    return res.text;
  };

  it('answers 401 without the token or with a wrong one', async () => {
    for (const auth of [undefined, 'Bearer nope', `Basic ${TOKEN}`, `Bearer ${TOKEN}x`]) {
      const req = t.http().get('/metrics');
      const res = await (auth ? req.set('Authorization', auth) : req);
      expect({ auth, status: res.status, body: res.body }).toEqual({
        auth,
        status: 401,
        body: { statusCode: 401, message: 'A valid metrics token is required.', error: 'Unauthorized' },
      });
    }
  });

  it('counts redemptions by outcome: 3 redemptions read 3', async () => {
    const before = sample(await scrape(), 'voucher_redemptions_total', { outcome: 'redeemed' }) ?? 0;
    const product = await productId(t.db, PRODUCTS.homeBusinessMac);
    for (let i = 0; i < 3; i++) await redeemNew(t, product, {}, 'MET');
    await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: randomCode('NOPE') }))
      .expect(404);
    const text = await scrape();
    expect(sample(text, 'voucher_redemptions_total', { outcome: 'redeemed' })).toBe(before + 3);
    expect(sample(text, 'voucher_redemptions_total', { outcome: 'unknown_code' })).toBe(1);
    // The request histogram labels the route pattern, not the path.
    expect(
      sample(text, 'http_request_duration_seconds_count', { route: '/api/redeem-voucher', status_code: '201' }),
    ).toBeGreaterThanOrEqual(3);
    expect(text).toContain('route="/api/redeem-voucher"');
  });

  it('reads the pool gauge, e-mail figures, queue depth and DB pool from their sources', async () => {
    const jobs = watchJobs(t);
    const managed = await licenseManagedProduct(t.db, `Metrics ${randomCode('P')}`);
    await addLicenseKey(t.db, managed, `MET-${randomCode('A')}`, { maxActivations: 5 });
    await addLicenseKey(t.db, managed, `MET-${randomCode('B')}`);
    await addLicenseKey(t.db, managed, `MET-${randomCode('C')}`, { active: false, maxActivations: 9 });
    await redeemNew(t, managed, {}, 'METP');
    // Every order e-mail sent (files in the test data dir): the e-mail figures are settled, so exact.
    await jobs.settled();
    // A connection held by someone else while the scrape runs.
    const held = t.db.createQueryRunner();
    await held.connect();
    await held.query('SELECT 1');
    let text: string;
    try {
      text = await scrape();
    } finally {
      await held.release();
    }
    const rows: Array<{ id: string; available: number }> = await t.db.query(
      `SELECT p.id, COALESCE(sum(k.max_activations - k.current_activations)
                FILTER (WHERE k.is_active AND NOT k.is_manual), 0)::int AS available
         FROM products p LEFT JOIN license_keys k ON k.product_id = p.id WHERE p.is_license_managed GROUP BY p.id`,
    );
    expect(rows.find((r) => r.id === managed)?.available).toBe(5);
    for (const r of rows) {
      expect([r.id, sample(text, 'voucher_pool_available_activations', { product_id: r.id })]).toEqual([
        r.id,
        r.available,
      ]);
    }

    const [{ pending }] = await t.db.query(
      `SELECT count(*)::int AS pending FROM redemptions WHERE email_status = 'pending'`,
    );
    const logged = await t.db.query(
      `SELECT provider, status, count(*)::int AS n FROM email_logs WHERE created_at > now() - interval '1 hour' GROUP BY 1, 2`,
    );
    expect(logged.length).toBeGreaterThan(0);
    expect(sample(text, 'order_emails', { status: 'failed' })).toBe(0);
    expect(sample(text, 'order_emails', { status: 'pending' })).toBe(pending);
    for (const l of logged) {
      expect([l, sample(text, 'email_sends_recent', { provider: l.provider, status: l.status })]).toEqual([l, l.n]);
    }
    expect(sample(text, 'job_queue_depth', { queue: 'mail' })).toBe(0);
    expect(sample(text, 'job_queue_depth', { queue: 'webhook' })).toBe(0);
    expect(sample(text, 'db_pool_connections', { state: 'in_use' })).toBeGreaterThanOrEqual(1);
  });

  it('is off (404) when METRICS_TOKEN is unset', async () => {
    const off = await startTestApp({}, { database: t.database });
    try {
      const res = await off.http().get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
      expect(res.status).toBe(404);
    } finally {
      await off.close();
    }
  });
});
