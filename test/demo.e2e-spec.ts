import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { redeemBody } from './helpers/factories';
import { httpFrom, Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './helpers/processes';
import { freePort } from './helpers/smtp';

/**
 * `npm run demo` (the README's "Try it"): on its own embedded PostgreSQL it seeds codes and pool keys, prints one
 * code per product and the admin login, and those work as printed. Its log is JSON lines when stdout is not a
 * terminal, with the embedded PostgreSQL's own output left at debug level.
 */
describe('npm run demo', () => {
  jest.setTimeout(180_000);
  let dataDir: string;
  let port: number;
  let demo: Spawned | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ovr-demo-'));
    // As root the embedded PostgreSQL runs as the `postgres` user, which must reach <DATA_DIR>/demo.
    chmodSync(dataDir, 0o755);
    port = await freePort();
  });
  afterAll(async () => {
    // The demo stops its embedded PostgreSQL on SIGTERM: give it the time.
    await stopAllSpawned(20_000);
    rmSync(dataDir, { recursive: true, force: true });
  });

  const url = (path: string) => `http://127.0.0.1:${port}${path}`;

  async function startDemo(env: Record<string, string>): Promise<{ codes: Map<string, string>; password: string }> {
    demo = startBuiltApp(
      'demo',
      { HOME: process.env.HOME ?? '/root', DATA_DIR: dataDir, PORT: String(port), SERVE_FRONTEND: 'false', ...env },
      { demo: true },
    );
    await waitUntil('the demo banner', () => /Ctrl\+C stops the demo/.test(demo!.output()), {
      timeoutMs: 150_000,
      processes: [demo],
    });
    const out = demo.output();
    const codes = new Map([...out.matchAll(/^ {2}(Office 2024 .+?) {2,}(DEMO-\S+)$/gm)].map((m) => [m[1], m[2]]));
    const password = /username admin {2}password (\S+) {2}\(new at every demo start\)/.exec(out)?.[1] ?? '';
    return { codes, password };
  }

  it('prints a code per product and the admin login; the codes redeem and the login signs in', async () => {
    const pgPort = String(await freePort());
    // The first start without its reference marketplace, whose codes would change the counts read below.
    const first = await startDemo({ EMBEDDED_POSTGRES_PORT: pgPort, DEMO_MARKETPLACE: 'false' });
    expect([...first.codes.keys()].sort()).toEqual([
      'Office 2024 Home & Business (Mac)',
      'Office 2024 Home & Business (Windows)',
      'Office 2024 Professional Plus (Windows)',
    ]);

    const login = await httpFrom('127.0.0.1', url('/api/admin/login'), {
      body: { username: 'admin', password: first.password },
    });
    expect(login.status).toBe(200);
    const auth = { authorization: `Bearer ${login.body.accessToken}` };
    const products = (await httpFrom('127.0.0.1', url('/api/products'), { headers: auth })).body as Array<{
      id: string;
      unredeemedCount: number;
    }>;
    expect(products.map((p) => p.unredeemedCount)).toEqual([10, 10, 10]);
    const keys = await httpFrom('127.0.0.1', url('/api/license-keys'), { headers: auth });
    expect(keys.body.summary.available).toBe(20);

    for (const [product, code] of first.codes) {
      const res = await httpFrom('127.0.0.1', url('/api/redeem-voucher'), { body: redeemBody({ voucherCode: code }) });
      expect({ product, status: res.status }).toEqual({ product, status: 201 });
      const view = await httpFrom('127.0.0.1', url(`/api/success-token/${res.body.successToken}`));
      // The Windows products deliver a pool key at once; the Mac one is delivered by links.
      expect({ product, hasKey: view.body.licenseKey !== null }).toEqual({ product, hasKey: !/Mac/.test(product) });
    }

    // "Send Test Email" to the default admin's own address lands in the demo's mail folder.
    const test = await httpFrom('127.0.0.1', url(`/api/products/${products[0].id}/test-email`), {
      headers: auth,
      body: { to: 'admin@localhost' },
    });
    expect(test.status).toBe(200);
    const mailDir = join(dataDir, 'demo', 'mail');
    const tests = readdirSync(mailDir).filter((f) => readFileSync(join(mailDir, f), 'utf8').includes('[TEST]'));
    expect(tests).toHaveLength(1);

    // JSON lines only (stdout is no terminal here), and nothing of PostgreSQL's own output at the info level.
    const lines = demo!
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'));
    expect(lines.length).toBeGreaterThan(10);
    expect(
      lines.filter((line) => /"context":"Database"/.test(line) && !/Initialising embedded PostgreSQL/.test(line)),
    ).toEqual([]);
    expect(demo!.output()).not.toMatch(/database system is ready|LOG: {2}/);
    // Nest's module and route lines are debug, not info: what a newcomer needs is not under 130 of them.
    expect(lines.filter((line) => /"context":"(InstanceLoader|RoutesResolver|RouterExplorer)"/.test(line))).toEqual([]);
    // No low-pool warning for the demo's pools (10 activations for 10 codes), and the banner between two rules.
    expect(demo!.output()).not.toMatch(/is low/);
    expect(demo!.output()).toMatch(/^═+\nDemo ready on http:\/\/localhost:\d+\n[\s\S]+Ctrl\+C stops the demo\.\n═+$/m);

    // A second start tops the codes up again, prints unredeemed ones and a new password.
    await demo!.stop(20_000);
    const second = await startDemo({
      EMBEDDED_POSTGRES_PORT: pgPort,
      DEMO_MARKETPLACE_PORT: String(await freePort()),
    });
    expect(second.codes.size).toBe(3);
    for (const code of first.codes.values()) expect([...second.codes.values()]).not.toContain(code);
    expect(second.password).not.toBe(first.password);
    const again = await httpFrom('127.0.0.1', url('/api/admin/login'), {
      body: { username: 'admin', password: second.password },
    });
    expect(again.status).toBe(200);

    // Its reference marketplace (docs/product.md §24): codes arrive within a minute of the start, and the redemption
    // of one is reported and acked, all of it printed in the demo's output.
    expect(demo!.output()).toContain('A reference marketplace sends codes of Office 2024 Home & Business (Mac) below');
    const sent = await waitFor(
      /^marketplace │ .*voucher\.created (MOCK-[0-9A-F]{8}) .*→ 200/m,
      'codes from the marketplace',
    );
    const redeemed = await httpFrom('127.0.0.1', url('/api/redeem-voucher'), {
      body: redeemBody({ voucherCode: sent }),
    });
    expect(redeemed.status).toBe(201);
    await waitFor(new RegExp(`^marketplace │ .*redemption \\S+ of ${sent} reported: acked`, 'm'), 'the report acked');
  });

  /** The first group of `pattern` in the demo's output (the whole match without one), within a minute. */
  async function waitFor(pattern: RegExp, what: string): Promise<string> {
    const found = () => pattern.exec(demo!.output());
    await waitUntil(what, () => found() !== null, { timeoutMs: 60_000, processes: [demo!] });
    const match = found()!;
    return match[1] ?? match[0];
  }
});
