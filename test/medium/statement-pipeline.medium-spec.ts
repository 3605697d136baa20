import { Client, Pool, type QueryConfig } from 'pg';
import { isDatabaseUnavailable } from '../../backend/src/common/filters/all-exceptions.filter';
import { PIPELINE_STALL_MS, StatementPipeline } from '../../backend/src/database/statement-pipeline';
import { createTestDatabase, TestDatabase } from '../helpers/database';
import { eventually } from '../helpers/redemptions';

/**
 * The redemption statement's pipeline (docs/architecture.md "The redemption's pipeline") on a real PostgreSQL: the
 * statements sent together on one connection stay one transaction each, it never opens more connections than its
 * size, a turn's statements leave in one write, and a connection that dies fails only the statements in flight on it.
 */
describe('StatementPipeline (medium)', () => {
  let database: TestDatabase;
  let admin: Client;
  let pipeline: StatementPipeline | undefined;
  /** The fallback (the app's pool): the statements it was given. */
  let pool: Pool;
  let fellBack: string[] = [];
  let tables = 0;

  beforeAll(async () => {
    database = await createTestDatabase('ovr_medium');
    admin = new Client({ connectionString: database.url });
    await admin.connect();
    pool = new Pool({ connectionString: database.url, max: 2 });
    // As the app's pool (TypeORM's listener, keepConnectionErrorsHandled): an idle client whose backend PostgreSQL
    // ends is the pool's to drop, not an uncaught 'error' of the test process (a full run once failed on 57P01,
    // "terminating connection due to administrator command", on an idle client being closed).
    pool.on('error', () => undefined);
  });
  afterEach(async () => {
    await pipeline?.end();
    pipeline = undefined;
    fellBack = [];
  });
  afterAll(async () => {
    await pool?.end();
    await admin?.end();
    await database?.drop();
  });

  const start = (size: number, name: string) => {
    pipeline = new StatementPipeline({ connectionString: database.url, application_name: name }, size, (statement) => {
      fellBack.push(statement.text);
      return pool.query(statement as QueryConfig);
    });
    return pipeline;
  };
  const backends = async (name: string): Promise<number> =>
    (await admin.query(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = $1`, [name])).rows[0]
      .n;
  const table = async () => {
    const name = `pipelined_${++tables}`;
    await admin.query(`CREATE TABLE ${name} (id int PRIMARY KEY)`);
    return name;
  };
  const insert = (p: StatementPipeline, name: string, id: number) =>
    p.query({ name: `insert-${name}`, text: `INSERT INTO ${name} (id) VALUES ($1) RETURNING id`, values: [id] });

  it('runs the statements sent together on one connection each in its own transaction: one that fails fails alone', async () => {
    const p = start(1, 'pipeline-tx');
    const name = await table();
    // Ten inserts in one turn on one connection; the sixth repeats the fifth's id.
    const ids = [1, 2, 3, 4, 5, 5, 7, 8, 9, 10];
    const outcomes = await Promise.allSettled(ids.map((id) => insert(p, name, id)));

    expect(outcomes.map((o) => o.status)).toEqual(ids.map((_, i) => (i === 5 ? 'rejected' : 'fulfilled')));
    expect((outcomes[5] as PromiseRejectedResult).reason).toMatchObject({ code: '23505' });
    const { rows } = await admin.query(`SELECT id FROM ${name} ORDER BY id`);
    expect(rows.map((r) => r.id)).toEqual([1, 2, 3, 4, 5, 7, 8, 9, 10]);
    expect(await backends('pipeline-tx')).toBe(1);
  });

  it('opens at most its size, and a new connection only while every open one is busy', async () => {
    const p = start(3, 'pipeline-size');
    const lone = await p.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    const again = await p.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    expect(again.rows[0].pid).toBe(lone.rows[0].pid);

    const busy = await Promise.all(
      Array.from({ length: 12 }, () =>
        p.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid, pg_sleep(0.05)' }),
      ),
    );
    expect(new Set(busy.map((r) => r.rows[0].pid)).size).toBe(3);
    expect(await backends('pipeline-size')).toBe(3);
  });

  it('sends the statements of one turn of the event loop to a connection in one write', async () => {
    const p = start(1, 'pipeline-write');
    await p.query({ text: 'SELECT 1' });
    const socket = (p as unknown as { lanes: Array<{ client: { connection: { stream: Record<string, unknown> } } }> })
      .lanes[0].client.connection.stream;
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method] as (...args: unknown[]) => unknown;
      socket[method] = function (this: unknown, ...args: unknown[]) {
        writes++;
        return original.apply(this, args);
      };
    }
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => p.query<{ n: number }>({ text: 'SELECT $1::int AS n', values: [i] })),
    );

    expect(answers.map((a) => a.rows[0].n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(writes).toBe(1);
  });

  it('fails only the statements in flight on a connection that dies, and opens a new one for the next', async () => {
    const p = start(1, 'pipeline-dies');
    const first = await p.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    const pid = first.rows[0].pid;
    const inFlight = Promise.allSettled([p.query({ text: 'SELECT pg_sleep(5)' }), p.query({ text: 'SELECT 2 AS n' })]);
    // Its backend is running the sleep (the second statement waits behind it) when it is terminated.
    await eventually(
      async () =>
        (await admin.query(`SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND query LIKE '%pg_sleep(5)%'`, [pid]))
          .rowCount === 1,
      5000,
      'the sleep to run',
    );
    await admin.query('SELECT pg_terminate_backend($1, 5000)', [pid]);

    const outcomes = await inFlight;
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    for (const o of outcomes) expect(isDatabaseUnavailable((o as PromiseRejectedResult).reason)).toBe(true);
    const next = await p.query<{ pid: number }>({ text: 'SELECT pg_backend_pid() AS pid' });
    expect(next.rows[0].pid).not.toBe(pid);
    expect(await backends('pipeline-dies')).toBe(1);
  });

  it('queues nothing behind a statement that waits for a lock: when every connection waits, the next goes to the pool', async () => {
    const p = start(2, 'pipeline-stall');
    const name = await table();
    await admin.query(`INSERT INTO ${name} (id) VALUES (1), (2)`);
    const locker = new Client({ connectionString: database.url });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query(`SELECT 1 FROM ${name} WHERE id IN (1, 2) FOR UPDATE`);
      const blocked = [1, 2].map((id) => p.query({ text: `UPDATE ${name} SET id = id WHERE id = $1`, values: [id] }));
      // Both connections' statements wait for the lock, for longer than the pipeline waits for an answer.
      await eventually(
        async () =>
          (
            await admin.query(
              `SELECT count(*)::int AS n FROM pg_stat_activity
                WHERE application_name = 'pipeline-stall' AND wait_event_type = 'Lock'
                  AND clock_timestamp() - query_start > make_interval(secs => $1::float8 / 1000)`,
              [PIPELINE_STALL_MS],
            )
          ).rows[0].n === 2,
        5000,
        'both statements waiting',
      );

      // Answered while the lock is still held: from the pool, not from behind the waiters.
      const answer = await p.query<{ n: number }>({ text: 'SELECT 3 AS n' });
      expect(answer.rows[0].n).toBe(3);
      expect(fellBack).toEqual(['SELECT 3 AS n']);
      expect(await backends('pipeline-stall')).toBe(2);

      await locker.query('COMMIT');
      expect((await Promise.all(blocked)).map((r) => r.rowCount)).toEqual([1, 1]);
      // Answered, the connections take statements again.
      await p.query({ text: 'SELECT 4' });
      expect(fellBack).toEqual(['SELECT 3 AS n']);
    } finally {
      await locker.end();
    }
  });

  it('refuses statements once ended, with the error of a closed connection', async () => {
    const p = start(2, 'pipeline-ended');
    await p.query({ text: 'SELECT 1' });
    await p.end();

    const refused = await p.query({ text: 'SELECT 1' }).catch((err: Error) => err);
    expect(refused).toBeInstanceOf(Error);
    expect(isDatabaseUnavailable(refused)).toBe(true);
    expect(await backends('pipeline-ended')).toBe(0);
  });
});
