import { addCodes, productId, PRODUCTS, randomCode, redeemBody } from './helpers/factories';
import { BuiltStack, expectNothingPartial, startBuiltStack } from './helpers/failures';
import { startMarketplace, TestMarketplace } from './helpers/marketplace';
import { httpFrom } from './helpers/processes';
import { eventually } from './helpers/redemptions';
import { startSmtpServer, TestSmtpServer } from './helpers/smtp';

const ADMIN_PASSWORD = 'Fa1lure!Paths#Admin';

/**
 * The report outbox's guarantee (docs/product.md §24.7): a worker killed with SIGKILL between a redemption and its
 * report loses nothing. The sender is the API's forked jobs worker of the built app (no REDIS_URL), killed while the
 * real marketplace server on loopback holds the first report unanswered; the next worker's sweep sends every report
 * again, each with its redemption id as Idempotency-Key, so the marketplace counts each redemption once.
 */
describe('failure paths: the jobs worker dies between a redemption and its marketplace report', () => {
  jest.setTimeout(180_000);
  let stack: BuiltStack;
  let marketplace: TestMarketplace;
  let smtp: TestSmtpServer;
  let killed: number | undefined;
  let held = false;

  beforeAll(async () => {
    marketplace = await startMarketplace((call) => {
      if (!call.path.endsWith('/redemptions') || held) return undefined;
      // The first report: the worker has sent it and waits for the answer; it dies before any comes.
      held = true;
      const pid = stack.workerPid();
      if (pid) {
        killed = pid;
        process.kill(pid, 'SIGKILL');
      }
      return 'hang';
    });
    smtp = await startSmtpServer();
    stack = await startBuiltStack({
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Office Licences <orders@shop.example>',
      // The marketplace on loopback: a development setting (production calls public https addresses only).
      NODE_ENV: 'development',
      WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1',
      GEO_BLOCKED_COUNTRIES: '',
      MARKETPLACE_BACKOFF_MS: '200',
      MARKETPLACE_TIMEOUT_MS: '500',
      MAIL_SWEEP_INTERVAL_MS: '500',
      MAIL_SWEEP_AFTER_MS: '1000',
    });
  });
  afterAll(async () => {
    await stack?.close();
    await marketplace?.close();
    await smtp?.close();
  });

  it('every redemption is reported, each with its id as Idempotency-Key, and acked once', async () => {
    const api = (method: string, path: string, body?: unknown, token?: string) =>
      httpFrom('127.0.0.1', `${stack.url}${path}`, {
        method,
        body,
        headers: token ? { authorization: `Bearer ${token}` } : {},
      });
    const login = await api('POST', '/api/admin/login', { username: 'admin', password: ADMIN_PASSWORD });
    expect(login.status).toBe(200);
    const token = login.body.accessToken as string;
    const product = await productId(stack.db, PRODUCTS.homeBusinessMac);
    const created = await api(
      'POST',
      '/api/marketplaces',
      { name: 'Partner', baseUrl: marketplace.baseUrl, products: [{ productId: product, externalRef: 'SKU-CRASH' }] },
      token,
    );
    expect(created.status).toBe(201);
    marketplace.useSecret(created.body.secret);
    const worker = await eventually(async () => stack.workerPid(), 30_000, 'the jobs worker');

    const codes = await addCodes(stack.db, product, [randomCode('MKC'), randomCode('MKC'), randomCode('MKC')]);
    for (const code of codes) {
      const res = await api('POST', '/api/redeem-voucher', redeemBody({ voucherCode: code }));
      expect(res.status).toBe(201);
    }
    const ids: string[] = (
      await stack.db.query(
        `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = ANY($1)`,
        [codes],
      )
    ).map((r: { id: string }) => r.id);
    expect(ids).toHaveLength(3);

    await eventually(async () => killed, 30_000, 'the worker to be killed with the first report unanswered');
    expect(killed).toBe(worker);
    await eventually(
      async () => {
        const pid = stack.workerPid();
        return pid !== undefined && pid !== killed ? pid : undefined;
      },
      30_000,
      'the API to start another jobs worker',
    );
    await eventually(
      async () =>
        (
          await stack.db.query(
            `SELECT count(*)::int AS n FROM marketplace_reports WHERE redemption_id = ANY($1) AND status = 'acked'`,
            [ids],
          )
        )[0].n === 3,
      120_000,
      'every report acked',
    );

    const reports = marketplace.callsTo('/redemptions');
    expect(reports.every((c) => c.signed)).toBe(true);
    for (const c of reports) expect(c.headers['idempotency-key']).toBe(c.json.redemptionId);
    // Each redemption reported under its own id; the one held when the worker died, again (the same key).
    expect([...new Set(reports.map((c) => c.json.redemptionId))].sort()).toEqual([...ids].sort());
    const heldId = reports[0].json.redemptionId;
    expect(reports.filter((c) => c.json.redemptionId === heldId).length).toBeGreaterThanOrEqual(2);
    const rows = await stack.db.query(
      `SELECT redemption_id, count(*)::int AS n FROM marketplace_reports WHERE kind = 'redemption'
        GROUP BY redemption_id ORDER BY redemption_id`,
    );
    expect(rows).toEqual([...ids].sort().map((id) => ({ redemption_id: id, n: 1 })));
    await expectNothingPartial(stack.db);
  });
});
