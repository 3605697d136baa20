import { ChildProcess, spawn } from 'child_process';
import { join } from 'path';
import { startTestApp, TEST_ADMIN_PASSWORD, TestApp } from './helpers/app';
import { redeemBody } from './helpers/factories';
import { eventually } from './helpers/redemptions';
import { RECEIVERS_ON_LOOPBACK } from './helpers/webhook-receiver';

/**
 * The reference marketplace (`npm run marketplace:mock`, scripts/marketplace-mock.js) against the real API: it connects
 * itself through the admin API, its codes arrive, and a redemption of one is checked and reported back to it.
 */
describe('npm run marketplace:mock', () => {
  let t: TestApp;
  let mock: ChildProcess | undefined;
  let output = '';

  beforeAll(async () => {
    t = await startTestApp({ ...RECEIVERS_ON_LOOPBACK, GEO_BLOCKED_COUNTRIES: '' });
  });
  afterAll(async () => {
    if (mock && mock.exitCode === null) {
      const exited = new Promise((resolve) => mock!.once('exit', resolve));
      mock.kill('SIGTERM');
      await exited;
    }
    await t?.close();
  });

  it('connects, sends codes, answers the live check and sees the redemption reported once', async () => {
    mock = spawn(process.execPath, [join(__dirname, '..', 'scripts', 'marketplace-mock.js')], {
      env: {
        ...process.env,
        SERVICE_URL: t.baseUrl,
        ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
        MOCK_PORT: '0',
        MOCK_CODES_EVERY_S: '3600',
      },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    mock.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    mock.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const code = await eventually(
      async () => /voucher\.created (MOCK-[0-9A-F]{8}) .*→ 200/.exec(output)?.[1],
      20_000,
      'codes',
    );
    const [{ n }] = await t.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE code = $1`, [code]);
    expect(n).toBe(1);
    const res = await t
      .http()
      .post('/api/redeem-voucher')
      .send(redeemBody({ voucherCode: code }));
    expect(res.status).toBe(201);
    expect(output).toContain(`check ${code}: valid`);
    await eventually(
      async () => new RegExp(`redemption \\S+ of ${code} reported: acked`).test(output),
      20_000,
      'the report',
    );
  });
});
