import { Clock } from '../backend/src/common/clock';
import { WebhookDeliveryService } from '../backend/src/modules/webhook/webhook-delivery.service';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { productId, PRODUCTS } from './helpers/factories';
import { expectNothingPartial } from './helpers/failures';
import { eventually, redeemNew } from './helpers/redemptions';
import { closedPort, freePort } from './helpers/smtp';
import { RECEIVERS_ON_LOOPBACK, startReceiver } from './helpers/webhook-receiver';

interface DeliveryRow {
  endpoint_id: string;
  status: string;
  attempts: number;
  response_status: number | null;
  last_error: string | null;
}

/**
 * Issue 27: webhook receivers that refuse connections, cut them, never answer, answer 503 or redirect (a 3xx is a
 * failure like any answer outside 2xx, and never followed: issue 55), until the retry window
 * (WEBHOOK_RETRY_HOURS) ends, on the injected Clock. A brief run of failures does not pause an endpoint; once the run
 * is WEBHOOK_PAUSE_AFTER_MINUTES old the delivery ends `failed` and the endpoint is paused (docs/product.md §20.4
 * paused endpoints"): events meanwhile are kept queued and not attempted, and Resume sends them once.
 */
describe('failure paths: webhook receivers that fail until the retry window ends', () => {
  jest.setTimeout(120_000);
  let t: TestApp;
  let admin: { Authorization: string };
  let offsetMs = 0;
  const receivers: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    t = await startTestApp({
      ...RECEIVERS_ON_LOOPBACK,
      GEO_BLOCKED_COUNTRIES: '',
      WEBHOOK_BACKOFF_MS: '20',
      // Long enough for a 503 to arrive on a loaded machine (300 ms once timed one out), short for the silent receiver.
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_RETRY_HOURS: '1',
      WEBHOOK_PAUSE_AFTER_FAILURES: '4',
      WEBHOOK_PAUSE_AFTER_MINUTES: '60',
    });
    // The app's time runs with the real one, plus what the test adds.
    jest.spyOn(t.app.get(Clock), 'now').mockImplementation(() => new Date(Date.now() + offsetMs));
    admin = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(async () => {
    for (const r of receivers) await r.close();
    await t?.close();
  });

  const register = async (url: string) =>
    (
      await t
        .http()
        .post('/api/webhooks')
        .set(admin)
        .send({ url, events: ['redemption.created'] })
        .expect(201)
    ).body.id as string;
  const deliveriesOf = async (ids: string[]): Promise<DeliveryRow[]> =>
    t.db.query(
      `SELECT endpoint_id, status, attempts, response_status, last_error FROM webhook_deliveries
        WHERE endpoint_id = ANY($1) ORDER BY created_at, endpoint_id`,
      [ids],
    );
  const endpoints = async (ids: string[]) =>
    (
      (await t.http().get('/api/webhooks').set(admin).expect(200)).body as Array<{
        id: string;
        pausedAt: string | null;
        consecutiveFailures: number;
      }>
    ).filter((e) => ids.includes(e.id));

  it('refused, cut, silent and 503 receivers: retried, then failed and paused when the window ends; Resume sends once', async () => {
    offsetMs = 0; // the Clock with the database's, whichever test ran before
    let answer = 503;
    const failing = await startReceiver(() => ({ status: answer }));
    const silent = await startReceiver(() => 'hang');
    receivers.push(failing, silent);
    const refused = `http://127.0.0.1:${await freePort()}/hook`; // nothing listens there
    const cut = `http://127.0.0.1:${await closedPort()}/hook`; // accepts, then drops the connection
    const ids = [await register(refused), await register(cut), await register(silent.url), await register(failing.url)];
    const product = await productId(t.db, PRODUCTS.homeBusinessMac);
    await redeemNew(t, product, {}, 'WHF');

    // Four quick failures each: retried with backoff, not paused (the run is younger than an hour).
    await eventually(
      async () => (await deliveriesOf(ids)).every((d) => d.attempts >= 4),
      60_000,
      'four attempts per delivery',
    );
    expect((await deliveriesOf(ids)).map((d) => d.status)).toEqual(['pending', 'pending', 'pending', 'pending']);
    expect((await endpoints(ids)).map((e) => e.pausedAt)).toEqual([null, null, null, null]);

    // An hour and a minute later (the Clock): the next attempt is past the retry window and the run is an hour old.
    offsetMs = 61 * 60_000;
    await eventually(
      async () => (await deliveriesOf(ids)).every((d) => d.status === 'failed'),
      60_000,
      'every delivery failed',
    );
    const failed = await deliveriesOf(ids);
    const byEndpoint = (id: string) => failed.find((d) => d.endpoint_id === id)!;
    expect(byEndpoint(ids[0]).last_error).toMatch(/ECONNREFUSED/);
    expect(byEndpoint(ids[1]).last_error).toMatch(/socket hang up|ECONNRESET|EPIPE/);
    expect(byEndpoint(ids[2]).last_error).toBe('No answer within 1000 ms');
    expect(byEndpoint(ids[3])).toMatchObject({ response_status: 503, last_error: 'The receiver answered 503' });
    const paused = await eventually(
      async () => {
        const list = await endpoints(ids);
        return list.every((e) => e.pausedAt) ? list : undefined;
      },
      15_000,
      'every endpoint paused',
    );
    for (const e of paused) expect(e.consecutiveFailures).toBeGreaterThanOrEqual(5);
    const [{ n }] = await t.db.query(
      `SELECT count(*)::int AS n FROM security_audit_log WHERE action = 'webhook.pause' AND resource_id = ANY($1)`,
      [ids],
    );
    expect(n).toBe(4);

    // Paused: the next event is kept, queued, and nothing is attempted (by a job or by the sweep).
    const seen = failing.received.length;
    await redeemNew(t, product, {}, 'WHF');
    const queued = await eventually(
      async () => {
        const rows = (await deliveriesOf(ids)).filter((d) => d.status === 'pending');
        return rows.length === 4 ? rows : undefined;
      },
      15_000,
      'the new event queued for each endpoint',
    );
    expect(queued.map((d) => d.attempts)).toEqual([0, 0, 0, 0]);
    expect(await t.app.get(WebhookDeliveryService).sweep(0)).toBe(0);
    expect(failing.received).toHaveLength(seen);

    // The receiver is fixed; Resume sends its queued delivery once; the failed one stays failed.
    answer = 200;
    const resumed = await t.http().post(`/api/webhooks/${ids[3]}/resume`).set(admin).expect(200);
    expect(resumed.body).toEqual({ success: true, message: 'Webhook resumed.', requeued: 1 });
    await eventually(
      async () => (await deliveriesOf([ids[3]])).some((d) => d.status === 'delivered'),
      15_000,
      'the queued delivery delivered',
    );
    expect((await deliveriesOf([ids[3]])).map((d) => d.status)).toEqual(['failed', 'delivered']);
    expect(failing.received.filter((h) => h.answered === 200)).toHaveLength(1);
    expect((await endpoints([ids[3]]))[0]).toMatchObject({ pausedAt: null, consecutiveFailures: 0 });
    // The others stay paused with their delivery queued.
    expect((await endpoints(ids.slice(0, 3))).every((e) => e.pausedAt)).toBe(true);
    await expectNothingPartial(t.db);
  });

  it('receivers answering 301-308: failed attempts, never followed; the delivery log shows the status', async () => {
    offsetMs = 0; // the Clock with the database's (a delivery's window starts at its created_at), whatever ran before
    // Where every redirect points: a receiver that would answer 200, and must never be asked.
    const target = await startReceiver();
    receivers.push(target);
    const statuses = [301, 302, 303, 307, 308];
    const redirecting = await Promise.all(
      statuses.map((status) => startReceiver(() => ({ status, body: 'moved', headers: { location: target.url } }))),
    );
    receivers.push(...redirecting);
    const ids: string[] = [];
    for (const r of redirecting) ids.push(await register(r.url));
    // "Send test event": a delivery to that endpoint alone, through the same outbox, signing and retries.
    for (const id of ids) await t.http().post(`/api/webhooks/${id}/test`).set(admin).expect(202);

    // Each answer is a failed attempt, retried with backoff: never delivered.
    const tried = await eventually(
      async () => {
        const rows = await deliveriesOf(ids);
        return rows.every((d) => d.attempts >= 2 || d.status !== 'pending') ? rows : undefined;
      },
      60_000,
      'two attempts per delivery',
    );
    expect(tried.map((d) => d.status)).toEqual(statuses.map(() => 'pending'));
    const log = async (id: string) =>
      (await t.http().get(`/api/webhooks/${id}/deliveries`).set(admin).expect(200)).body.deliveries as Array<{
        event: string;
        status: string;
        responseStatus: number | null;
        lastError: string | null;
      }>;
    for (const [i, id] of ids.entries()) {
      const status = statuses[i];
      expect(await log(id)).toEqual([
        expect.objectContaining({
          event: 'webhook.test',
          status: 'pending',
          responseStatus: status,
          lastError: `The receiver answered ${status}`,
        }),
      ]);
    }
    expect((await endpoints(ids)).every((e) => e.consecutiveFailures >= 2)).toBe(true);

    // Past the retry window (the Clock): each delivery ends failed, with the redirect's status as its answer.
    offsetMs = 61 * 60_000;
    await eventually(
      async () => (await deliveriesOf(ids)).every((d) => d.status === 'failed'),
      60_000,
      'every delivery failed',
    );
    for (const [i, id] of ids.entries()) {
      expect(await log(id)).toEqual([expect.objectContaining({ status: 'failed', responseStatus: statuses[i] })]);
      expect(redirecting[i].received.length).toBeGreaterThanOrEqual(2);
    }
    // Not one redirect was followed.
    expect(target.received).toHaveLength(0);
    for (const id of ids) await t.http().delete(`/api/webhooks/${id}`).set(admin).expect(200);
  });
});
