import Redis from 'ioredis';
import { BullJobQueue } from '../../backend/src/modules/jobs/bull-job-queue';
import { defineJob } from '../../backend/src/modules/jobs/job';
import { JobRegistry } from '../../backend/src/modules/jobs/job-registry';
import { eventually } from '../helpers/redemptions';
import { startRedisServer, TestRedisServer } from '../helpers/redis';

const SEND = defineJob<{ id: string }>('things.send', { formerNames: ['send-thing'] });
const SWEEP = defineJob<object>('things.sweep', { formerNames: ['sweep-things'] });
const QUEUE = 'things';

/** The jobs on a private Redis: what reaches it from adds made in one turn of the event loop. */
describe('BullJobQueue', () => {
  let redis: TestRedisServer;
  let client: Redis;
  let monitor: Redis;
  let probe: Redis;
  let commands: string[][];
  let queue: BullJobQueue;
  let prefix: string;

  beforeAll(async () => {
    redis = await startRedisServer();
  });
  afterAll(() => redis.stop());

  beforeEach(async () => {
    const registry = new JobRegistry();
    registry.register(SEND, {
      queue: QUEUE,
      jobId: ({ id }) => id,
      handle: async () => undefined, // not run: this process only queues (processJobs false)
    });
    prefix = `t${Date.now()}`;
    queue = new BullJobQueue(registry, false, { redis: redis.url, prefix });
    await queue.queue(QUEUE).isReady();
    client = new Redis(redis.url);
    probe = new Redis(redis.url);
    monitor = await client.monitor();
    commands = [];
    // What clients send (the scripts' own calls show too, from "lua").
    monitor.on('monitor', (_time: string, args: string[], source: string) => {
      if (source !== 'lua') commands.push(args);
    });
  });
  afterEach(async () => {
    monitor.disconnect();
    client.disconnect();
    probe.disconnect();
    await queue.onApplicationShutdown();
  });

  /**
   * The commands Redis ran so far, lower-cased names: MONITOR reports them on its own connection, so an answer on
   * another one can come first. Redis runs commands one at a time and reports them in that order: once an ECHO sent
   * after them is reported, so is every command before it.
   */
  const commandsRun = async () => {
    const marker = `seen-${commands.length}-${Date.now()}`;
    const seen = new Promise<void>((resolve) =>
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args[0].toLowerCase() === 'echo' && args[1] === marker) resolve();
      }),
    );
    await probe.echo(marker);
    await seen;
    const names = commands.map((args) => args[0].toLowerCase());
    return names.slice(0, names.lastIndexOf('echo'));
  };

  const depth = async () => {
    const counts = await queue.queue(QUEUE).getJobCounts();
    return counts.waiting + counts.delayed + counts.active;
  };

  it('sends the jobs added in one turn as one MULTI, one live job per id', async () => {
    queue.add(SEND, { id: 'a' });
    queue.add(SEND, { id: 'b' });
    queue.add(SEND, { id: 'a' }); // the same id again: still one live job
    // pending() sends what was added before it reads the depth.
    expect(await queue.pending(QUEUE)).toBe(2);
    const names = await commandsRun();
    // The three adds' scripts, together inside one MULTI … EXEC (the depth's read is a MULTI of its own after it).
    const scripts = names.flatMap((name, i) => (name === 'evalsha' || name === 'eval' ? [i] : []));
    expect(scripts).toHaveLength(3);
    expect(names[scripts[0] - 1]).toBe('multi');
    expect(scripts).toEqual([scripts[0], scripts[0] + 1, scripts[0] + 2]);
    expect(names[scripts[2] + 1]).toBe('exec');
  });

  it('sends a job added alone without a MULTI', async () => {
    queue.add(SEND, { id: 'c' });
    expect(await queue.pending(QUEUE)).toBe(1);
    const names = await commandsRun();
    const scripts = names.flatMap((name, i) => (name === 'evalsha' || name === 'eval' ? [i] : []));
    expect(scripts).toHaveLength(1);
    expect(names.slice(0, scripts[0])).not.toContain('multi');
  });

  it('keys a job `<name>:<id>`', async () => {
    queue.add(SEND, { id: 'f' });
    expect(await queue.pending(QUEUE)).toBe(1);
    expect((await queue.queue(QUEUE).getWaiting()).map((job) => [job.name, job.id])).toEqual([
      ['things.send', 'things.send:f'],
    ]);
  });

  it('runs a job queued under its former name, and drops a repeatable left under one', async () => {
    // Left by the previous release: a job waiting under the old name, and the old schedule.
    const bull = queue.queue(QUEUE);
    await bull.add('send-thing', { id: 'queued-before' });
    await bull.add('sweep-things', {}, { repeat: { every: 3_600_000 } });
    await queue.onApplicationShutdown();

    const ran: string[] = [];
    const registry = new JobRegistry();
    registry.register(SEND, { queue: QUEUE, handle: async ({ id }) => void ran.push(id) });
    registry.register(SWEEP, { queue: QUEUE, handle: async () => undefined });
    registry.schedule(SWEEP, 3_600_000, {});
    queue = new BullJobQueue(registry, true, { redis: redis.url, prefix });
    queue.onApplicationBootstrap();
    await eventually(async () => ran.length > 0, 10_000, 'the job queued under the former name');
    expect(ran).toEqual(['queued-before']);
    const schedules = async () => (await queue.queue(QUEUE).getRepeatableJobs()).map((r) => r.name);
    await eventually(async () => (await schedules()).join() === 'things.sweep', 10_000, 'the old schedule gone');
  });

  it('sends what was added before it shuts down', async () => {
    queue.add(SEND, { id: 'd' });
    queue.add(SEND, { id: 'e' });
    await queue.onApplicationShutdown();
    queue = new BullJobQueue(new JobRegistry(), false, { redis: redis.url, prefix });
    expect(await depth()).toBe(2);
  });
});
