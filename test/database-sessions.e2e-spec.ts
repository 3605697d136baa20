import { DatabaseService } from '../backend/src/database/database.service';
import { startTestApp, TestApp } from './helpers/app';

/**
 * The API's sessions plan without parallel workers (data-source-options.ts, API_SESSION_OPTIONS): a list's search
 * spent more starting two workers than running. A code export's held connection (`parallel`) gets them back for its
 * work only, and the connection goes back to the pool as it came.
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
    (await query(`SELECT current_setting('max_parallel_workers_per_gather') AS workers, pg_backend_pid() AS pid`))[0];

  it('runs the API statements without parallel workers', async () => {
    expect((await workersAndPid((sql) => database.manager.query(sql))).workers).toBe('0');
  });

  it('gives a parallel held connection its workers, in a transaction or not, and resets them after', async () => {
    const onHeld = (options: Parameters<DatabaseService['withClient']>[1]) =>
      database.withClient(async (client) => workersAndPid(async (sql) => (await client.query(sql)).rows), options);
    for (const transaction of [false, true]) {
      const held = await onHeld({ bulk: true, parallel: true, transaction });
      expect(held.workers).toBe('2');
      // The pool hands out the connection released last: the same one, back at the API's setting, for bulk work that
      // is not a code export as for any other.
      expect(await onHeld({ bulk: true, transaction })).toEqual({ workers: '0', pid: held.pid });
      expect(await onHeld({})).toEqual({ workers: '0', pid: held.pid });
    }
  });
});
