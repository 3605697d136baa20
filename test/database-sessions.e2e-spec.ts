import { DataSource } from 'typeorm';
import type { Pool } from 'pg';
import { DatabaseService } from '../backend/src/database/database.service';
import { startTestApp, TestApp } from './helpers/app';
import { eventually } from './helpers/redemptions';

/**
 * The API's sessions plan without parallel workers or JIT (data-source-options.ts, API_SESSION_OPTIONS): a list's
 * search spent more starting two workers than running, and a connection's first large plan loaded LLVM. A code
 * export's held connection (`parallel`) gets them back for its work only, and the connection goes back to the pool
 * as it came. Idle connections stay open (DB_POOL_IDLE_MS, 0 by
 * default): a new one's first statement on a large table waits for its caches to fill.
 */
describe('the API database sessions and parallel workers', () => {
  let t: TestApp;
  let database: DatabaseService;

  beforeAll(async () => {
    t = await startTestApp();
    database = t.app.get(DatabaseService);
  });
  afterAll(() => t.close());

  const workersAndPid = async (query: (sql: string) => Promise<Array<Record<string, string | number>>>) =>
    (
      await query(
        `SELECT current_setting('max_parallel_workers_per_gather') AS workers, current_setting('jit') AS jit,
                pg_backend_pid() AS pid`,
      )
    )[0];

  it('runs the API statements without parallel workers or JIT, the pipelined redemption statement too', async () => {
    expect(await workersAndPid((sql) => database.manager.query(sql))).toMatchObject({ workers: '0', jit: 'off' });
    // The redemption's own connections (DatabaseService.pipelined) open with the pool's settings.
    const pipelined = await workersAndPid(async (text) => (await database.pipelined({ text })).rows);
    expect(pipelined).toMatchObject({ workers: '0', jit: 'off' });
    const pooled = await Promise.all(
      Array.from({ length: 4 }, () => workersAndPid((sql) => database.manager.query(sql))),
    );
    expect(pooled.map((row) => row.pid)).not.toContain(pipelined.pid);
  });

  it('gives a parallel held connection its workers, in a transaction or not, and resets them after', async () => {
    const onHeld = (options: Parameters<DatabaseService['withClient']>[1]) =>
      database.withClient(async (client) => workersAndPid(async (sql) => (await client.query(sql)).rows), options);
    for (const transaction of [false, true]) {
      const held = await onHeld({ bulk: true, parallel: true, transaction });
      expect(held).toMatchObject({ workers: '2', jit: 'on' });
      // The pool hands out the connection released last: the same one, back at the API's settings, for bulk work that
      // is not a code export as for any other.
      expect(await onHeld({ bulk: true, transaction })).toEqual({ workers: '0', jit: 'off', pid: held.pid });
      expect(await onHeld({})).toEqual({ workers: '0', jit: 'off', pid: held.pid });
    }
  });

  it('keeps idle connections open by default and closes them after DB_POOL_IDLE_MS when it is set', async () => {
    const poolOf = (app: TestApp) => (app.app.get(DataSource).driver as unknown as { master: Pool }).master;
    expect(poolOf(t).options.idleTimeoutMillis).toBe(0);
    // The app's own timers (the mail sweep, the pools' starts) take connections from the same pool: run hourly here,
    // they leave the pool to the test.
    const short = await startTestApp({
      DB_POOL_IDLE_MS: '2000',
      MAIL_SWEEP_INTERVAL_MS: '3600000',
      POOL_START_INTERVAL_MS: '3600000',
    });
    try {
      expect(poolOf(short).options.idleTimeoutMillis).toBe(2000);
      // Four connections at once, then idle. Anything else still running reuses the one released last first, so at
      // least the others must close.
      const held = await Promise.all(
        [1, 2, 3, 4].map(() =>
          short.app.get(DatabaseService).manager.query(`SELECT pg_backend_pid() AS pid FROM pg_sleep(0.3)`),
        ),
      );
      const pids = held.map(([row]: Array<{ pid: number }>) => row.pid);
      expect(new Set(pids).size).toBe(4);
      const open = async () =>
        (
          await database.manager.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[])`, [
            pids,
          ])
        )[0].n;
      expect(await open()).toBe(4);
      await eventually(async () => (await open()) <= 2, 30_000, 'idle connections to close');
    } finally {
      await short.close();
    }
  });
});
