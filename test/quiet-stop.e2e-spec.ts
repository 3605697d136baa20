import { randomBytes } from 'crypto';
import { Client } from 'pg';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { createMigratedDatabase, TestDatabase } from './helpers/database';
import { Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './helpers/processes';
import { freePort } from './helpers/smtp';

/**
 * A Ctrl+C while the service is still starting (docs/product.md §23.8): the start finishes, then the
 * service stops in order and exits 0, with its one "shutting down" line and no stack trace.
 */
describe('a stop asked for during the start', () => {
  jest.setTimeout(90_000);
  let database: TestDatabase;
  let dataDir: string;

  beforeAll(async () => {
    database = await createMigratedDatabase('ovr_stop');
    dataDir = mkdtempSync(join(tmpdir(), 'ovr-stop-'));
  });
  afterAll(async () => {
    await stopAllSpawned();
    await database?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async (): Promise<Spawned> =>
    startBuiltApp('api', {
      NODE_ENV: 'production',
      PUBLIC_URL: 'https://licences.example.test',
      // Never reached: the service stops before any e-mail.
      SMTP_URL: 'smtp://127.0.0.1:9',
      DATABASE_URL: database.url,
      JWT_SECRET: randomBytes(48).toString('base64'),
      DATA_KEY: randomBytes(32).toString('base64'),
      ADMIN_PASSWORD: 'Qu1et!Stop#Admin',
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      SERVE_FRONTEND: 'false',
      LOG_LEVEL: 'info',
      EMBEDDED_WORKER: 'false',
    });

  it.each(['SIGINT', 'SIGTERM'] as const)(
    '%s mid-start: the start ends, then an orderly stop, exit 0',
    async (signal) => {
      // Mid-start, held there: the admin bootstrap (onApplicationBootstrap) waits for a lock on admin_users.
      const holder = new Client({ connectionString: database.url });
      await holder.connect();
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE admin_users IN ACCESS EXCLUSIVE MODE');
      // pg_stat_activity read inside a transaction is read once and kept: the watch is another session.
      const watcher = new Client({ connectionString: database.url });
      await watcher.connect();
      const api = await start();
      try {
        await waitUntil(
          'the start to wait for the lock',
          async () => {
            const { rows } = await watcher.query(
              `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`,
            );
            return rows.length > 0;
          },
          { timeoutMs: 60_000, processes: [api] },
        );
        api.child.kill(signal);
      } finally {
        await holder.query('COMMIT');
        await holder.end();
        await watcher.end();
      }
      const [code, killedBy] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) =>
        api.child.once('exit', (exitCode, signalCode) => resolve([exitCode, signalCode])),
      );
      expect({ code, killedBy }).toEqual({ code: 0, killedBy: null });
      const messages = api.logLines().map((line) => String(line.msg));
      expect(messages).toContain(`${signal}: shutting down`);
      expect(messages.some((msg) => msg.startsWith('Listening on'))).toBe(false);
      expect(api.output()).not.toMatch(/\bat .+\.js:\d+:\d+/);
    },
  );
});
