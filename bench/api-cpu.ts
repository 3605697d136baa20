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
 * on the same database, alternating with this one's, round by round: a before and after on the same minutes.
 */
import { Agent } from 'http';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { seedPool } from './redeem';
import {
  cpuMs,
  formatSpread,
  machine,
  redeemRequest,
  REDIS_URL,
  RUNS,
  spread,
  startApi,
  withDatabase,
  writeResult,
} from './lib';

const RATE = Number(process.env.BENCH_API_RATE ?? 500);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const COMPARE = process.env.BENCH_API_CPU_COMPARE;
/** Every round of every API redeems fresh codes: RUNS rounds plus a warm-up, for one or two APIs. */
const CODES = Math.ceil(RATE * SECONDS * 1.2) * (RUNS + 1) * (COMPARE ? 2 : 1);

let next = 0;

/** One round at RATE for SECONDS: redemptions answered 201, other answers, and the API process's CPU per 201. */
async function round(baseUrl: string, pid: number): Promise<{ done: number; errors: number; cpuMs: number }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const api = new URL(baseUrl);
  let done = 0;
  let errors = 0;
  const total = RATE * SECONDS;
  const one = async () => {
    const n = ++next;
    if ((await redeemRequest(agent, api, `HTTP-${n}`, `cpu${n}@bench.test`)) === 201) done++;
    else errors++;
  };
  const before = cpuMs(pid);
  const started = Date.now();
  const inFlight: Array<Promise<void>> = [];
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * RATE));
      while (sent < due) {
        inFlight.push(one());
        sent++;
      }
      if (sent >= total) {
        clearInterval(tick);
        resolve();
      }
    }, 5);
  });
  await Promise.all(inFlight);
  const used = cpuMs(pid) - before;
  agent.destroy();
  return { done, errors, cpuMs: used / Math.max(done, 1) };
}

export async function main(): Promise<void> {
  await withDatabase(async (url) => {
    await runMigrations(url);
    const seeder = new Client({ connectionString: url });
    await seeder.connect();
    await seedPool(seeder, ['HTTP-'], CODES).finally(() => seeder.end());
    const env = { DATABASE_URL: url, REDIS_URL, WORKERS_IN_API: 'false' };
    const apis = [
      { name: 'this checkout', api: await startApi({ ...env, REDIS_PREFIX: `bench-cpu-a-${Date.now()}` }) },
      ...(COMPARE
        ? [
            {
              name: COMPARE,
              api: await startApi({ ...env, REDIS_PREFIX: `bench-cpu-b-${Date.now()}` }, { root: COMPARE }),
            },
          ]
        : []),
    ];
    const figures = apis.map(() => [] as number[]);
    const errors = apis.map(() => 0);
    try {
      for (const { api } of apis) await round(api.url, api.child.pid!); // warm-up
      for (let run = 0; run < RUNS; run++) {
        for (const [i, { name, api }] of apis.entries()) {
          const r = await round(api.url, api.child.pid!);
          figures[i].push(r.cpuMs);
          errors[i] += r.errors;
          console.log(`${name}, round ${run + 1}: ${r.cpuMs.toFixed(3)} ms per redemption (${r.errors} errors)`);
        }
      }
    } finally {
      for (const { api } of apis) await api.stop();
    }
    const rows = apis.map(
      ({ name }, i) =>
        `| ${name} | ${formatSpread(spread(figures[i]), 3)} ms | ${figures[i].map((f) => f.toFixed(3)).join(', ')} | ${errors[i]} |`,
    );
    const md = `## API CPU per redemption at a fixed rate

${new Date().toISOString().slice(0, 10)}, ${machine()}, \`POST /api/redeem-voucher\` offered at ${RATE}/s for ${SECONDS} s a round, ${RUNS} rounds${COMPARE ? ' alternating between the two checkouts' : ''}, after a warm-up round; the API process's CPU time over the round divided by the redemptions it answered (workers off: e-mail jobs queued on Redis).

| API | CPU per redemption, median (min–max) | rounds | errors |
|---|---|---|---|
${rows.join('\n')}`;
    console.log(md);
    writeResult('api-cpu', md);
  });
}
