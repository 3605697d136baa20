/**
 * The live check at redeem (issue 52, docs/product.md §24.6): redemptions of a product connected to a marketplace with
 * `checkAtRedeem` on against the marketplace's own answer time, in one run. The marketplace is a server of this
 * process on loopback (the protocol's check, reports acknowledged) that answers each check after a fixed delay; it is
 * connected through the admin API (`POST /api/marketplaces`). Each run has three rounds at the same fixed rate, in
 * turn: redemptions of a product without a connection, redemptions of the connected one, and signed checks sent
 * straight to the marketplace as the service sends them (over kept connections, as the service's).
 * Target: the connected product's redemption p95 ≤ the marketplace's own answer p95 + 5 ms at 200 redemptions/s.
 *
 *   npm run bench -- marketplace   (BENCH_MARKETPLACE_RATE (200/s), BENCH_MARKETPLACE_DELAY_MS (20),
 *                                   BENCH_SECONDS (15 per round), BENCH_RUNS (3))
 *
 * The API runs with NODE_ENV=development: production refuses WEBHOOK_ALLOW_INSECURE_TARGETS, and a marketplace on
 * loopback needs it (the SSRF guard). Workers are off (WORKERS_IN_API=false): the reports wait in their outbox.
 */
import { createServer, request, Agent } from 'http';
import type { AddressInfo } from 'net';
import { loadavg } from 'os';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import {
  marketplaceSignature,
  verifyMarketplaceSignature,
} from '../backend/src/modules/marketplace/marketplace-signature';
import {
  adminToken,
  formatSpread,
  insertSealedKeys,
  machine,
  openLoop,
  REDIS_URL,
  redeemRequest,
  RUNS,
  spread,
  startApi,
  withDatabase,
  withPoolStarts,
  writeResult,
} from './lib';
import { cpuMs, watchThreads } from './proc';
import { recountCounters } from './recount';

const RATE = Number(process.env.BENCH_MARKETPLACE_RATE ?? 200);
const DELAY_MS = Number(process.env.BENCH_MARKETPLACE_DELAY_MS ?? 20);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const WARM_UP_SECONDS = 3;
const TARGET_EXTRA_MS = 5;
/** Codes per product: every round of every run and its warm-ups, and a margin. */
const CODES = RATE * (SECONDS + WARM_UP_SECONDS) * RUNS + 1000;

interface Latencies {
  p50: number;
  p95: number;
  p99: number;
  /** Answers that were not the expected status. */
  failed: number;
  /** The rate the requests actually left at. */
  rate: number;
  /** The API's CPU per redemption (ms) and the shares of the round its main thread ran and waited for a core. */
  api?: { cpuMs: number; running: number; waiting: number };
}

function latencies(times: number[], failed: number, rate: number): Latencies {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? NaN;
  return { p50: at(0.5), p95: at(0.95), p99: at(0.99), failed, rate };
}

/** The marketplace: answers a signed check `valid` after DELAY_MS, acknowledges reports and refunds. */
async function startMarketplace() {
  let secret = '';
  let checks = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const header = (name: string) => req.headers[name] as string | undefined;
      const answer = (status: number, json: unknown) =>
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json));
      const now = Math.floor(Date.now() / 1000);
      if (!verifyMarketplaceSignature(secret, header('x-timestamp'), header('x-signature'), body, now)) {
        return answer(401, { message: 'Invalid signature' });
      }
      const path = new URL(req.url ?? '/', 'http://marketplace').pathname;
      if (req.method === 'POST' && path.endsWith('/vouchers/check')) {
        checks++;
        setTimeout(() => answer(200, { status: 'valid' }), DELAY_MS);
        return;
      }
      answer(200, path.endsWith('/events') ? { events: [], cursor: '0' } : { ok: true });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/mp`,
    port,
    useSecret: (s: string) => (secret = s),
    signedCheck: (code: string) => {
      const body = JSON.stringify({ code, externalRef: 'BENCH-REF' });
      const at = Math.floor(Date.now() / 1000);
      return { body, headers: { 'X-Timestamp': String(at), 'X-Signature': marketplaceSignature(secret, at, body) } };
    },
    checks: () => checks,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
type Marketplace = Awaited<ReturnType<typeof startMarketplace>>;

/** A licence-managed product with codes `${prefix}1` … and a sealed pool key for each. */
async function seedProduct(pg: Client, name: string, prefix: string): Promise<string> {
  const {
    rows: [product],
  } = await pg.query(
    `INSERT INTO products (name, is_license_managed, email_subject, email_template)
     VALUES ($1, true, 'Key', '<p>{{license_key}}</p>') RETURNING id`,
    [name],
  );
  await pg.query(`INSERT INTO voucher_codes (code, product_id) SELECT $3 || n, $1 FROM generate_series(1, $2::int) n`, [
    product.id,
    CODES,
    prefix,
  ]);
  await insertSealedKeys(pg, product.id, CODES, { prefix: `${prefix}KEY-` });
  return product.id;
}

/**
 * `seconds` at RATE of redemptions of `${prefix}<n>` from `next[prefix]` on; their latencies (201 expected), and the
 * API process's (`pid`) CPU per redemption and main-thread shares over the round.
 */
async function redeemRound(
  api: URL,
  pid: number,
  agent: Agent,
  prefix: string,
  next: Record<string, number>,
  seconds: number,
): Promise<Latencies> {
  const [cpuBefore, threads] = [cpuMs(pid), watchThreads([pid])];
  const times: number[] = [];
  let failed = 0;
  const start = next[prefix];
  const total = RATE * seconds;
  next[prefix] += total;
  const rate = await openLoop(RATE, total, async (i) => {
    const n = start + i;
    const began = process.hrtime.bigint();
    const status = await redeemRequest(agent, api, `${prefix}${n}`, `${prefix.toLowerCase()}${n}@bench.test`);
    times.push(Number(process.hrtime.bigint() - began) / 1e6);
    if (status !== 201) failed++;
  });
  const thread = threads();
  return { ...latencies(times, failed, rate), api: { cpuMs: (cpuMs(pid) - cpuBefore) / total, ...thread } };
}

/** `seconds` at RATE of signed checks straight to the marketplace, over kept connections as the service's. */
async function checkRound(mp: Marketplace, seconds: number) {
  const agent = new Agent({ keepAlive: true, timeout: 4_000, maxSockets: 64, maxFreeSockets: 16 });
  const times: number[] = [];
  let failed = 0;
  const rate = await openLoop(RATE, RATE * seconds, async (i) => {
    const { body, headers } = mp.signedCheck(`DIRECT-${i}`);
    const began = process.hrtime.bigint();
    const status = await new Promise<number>((resolve) => {
      const req = request(
        {
          agent,
          hostname: '127.0.0.1',
          port: mp.port,
          path: '/mp/vouchers/check',
          method: 'POST',
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', () => resolve(0));
      req.end(body);
    });
    times.push(Number(process.hrtime.bigint() - began) / 1e6);
    if (status !== 200) failed++;
  });
  agent.destroy();
  return latencies(times, failed, rate);
}

export async function main(): Promise<void> {
  await withDatabase(async (url) => {
    await runMigrations(url);
    const pg = new Client({ connectionString: url });
    await pg.connect();
    let connected: string;
    let unconnected: string;
    try {
      connected = await seedProduct(pg, 'Bench Connected (Windows)', 'MPC-');
      unconnected = await seedProduct(pg, 'Bench Unconnected (Windows)', 'MPU-');
      await recountCounters(pg, [connected, unconnected]);
      await pg.query('VACUUM ANALYZE');
    } finally {
      await pg.end();
    }
    const mp = await startMarketplace();
    const token = await adminToken(url);
    const api = await startApi({
      DATABASE_URL: url,
      REDIS_URL,
      REDIS_PREFIX: `bench-mp-${Date.now()}`,
      WORKERS_IN_API: 'false',
      NODE_ENV: 'development',
      WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1',
    });
    const agent = new Agent({ keepAlive: true, maxSockets: 256 });
    try {
      const res = await fetch(`${api.url}/api/marketplaces`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Bench marketplace',
          baseUrl: mp.baseUrl,
          products: [{ productId: connected, externalRef: 'BENCH-REF' }],
          checkAtRedeem: true,
          reportRedemptions: true,
          onUnreachable: 'refuse',
        }),
      });
      if (res.status !== 201) {
        throw new Error(`bench: POST /api/marketplaces answered ${res.status} ${await res.text()}`);
      }
      mp.useSecret(((await res.json()) as { secret: string }).secret);
      const target = new URL(api.url);
      const pid = api.child.pid!;
      const next: Record<string, number> = { 'MPC-': 1, 'MPU-': 1 };
      const rounds = {
        unconnected: [] as Latencies[],
        connected: [] as Latencies[],
        check: [] as Latencies[],
        checked: 0,
      };
      await withPoolStarts(url, async () => {
        // Warm-up: the API's first plans and connections, the marketplace's first calls.
        await redeemRound(target, pid, agent, 'MPU-', next, WARM_UP_SECONDS);
        await redeemRound(target, pid, agent, 'MPC-', next, WARM_UP_SECONDS);
        for (let run = 0; run < RUNS; run++) {
          rounds.unconnected.push(await redeemRound(target, pid, agent, 'MPU-', next, SECONDS));
          const checksBefore = mp.checks();
          rounds.connected.push(await redeemRound(target, pid, agent, 'MPC-', next, SECONDS));
          const checked = mp.checks() - checksBefore;
          rounds.checked += checked;
          rounds.check.push(await checkRound(mp, SECONDS));
          const [u, c, k] = [rounds.unconnected, rounds.connected, rounds.check].map((r) => r[run]);
          console.log(
            `run ${run + 1}: p95 unconnected ${u.p95.toFixed(1)} ms, connected ${c.p95.toFixed(1)} ms, marketplace ${k.p95.toFixed(1)} ms`,
          );
        }
      });
      write(rounds);
    } finally {
      agent.destroy();
      await api.stop();
      await mp.close();
    }
  });
}

function write(rounds: {
  unconnected: Latencies[];
  connected: Latencies[];
  check: Latencies[];
  checked: number;
}): void {
  const row = (what: string, r: Latencies[]) =>
    `| ${what} | ${formatSpread(spread(r.map((x) => x.rate)))} | ${formatSpread(spread(r.map((x) => x.p50)), 1)} | ${formatSpread(spread(r.map((x) => x.p95)), 1)} | ${formatSpread(spread(r.map((x) => x.p99)), 1)} | ${r.reduce((s, x) => s + x.failed, 0)} |`;
  // Each run's connected p95 less its own marketplace p95: the rounds of one run share the machine's state.
  const extra = spread(rounds.connected.map((c, i) => c.p95 - rounds.check[i].p95));
  const overUnconnected = spread(rounds.connected.map((c, i) => c.p95 - rounds.unconnected[i].p95));
  const met = extra.median <= TARGET_EXTRA_MS;
  const apiUse = (r: Latencies[]) =>
    `${formatSpread(spread(r.map((x) => x.api!.cpuMs)), 2)} ms of CPU per redemption, its main thread on a core ${formatSpread(spread(r.map((x) => 100 * x.api!.running)))}% of the round and waiting for one ${formatSpread(spread(r.map((x) => 100 * x.api!.waiting)))}%`;
  const md = `## Live check at redeem

${new Date().toISOString().slice(0, 10)}, ${machine()}, one API process (workers off, \`NODE_ENV=development\` for \`WEBHOOK_ALLOW_INSECURE_TARGETS=127.0.0.1\`), a marketplace in the benchmark's process on loopback answering each signed check after ${DELAY_MS} ms, connected through \`POST /api/marketplaces\` with \`checkAtRedeem\`; ${RUNS} runs of three rounds in turn, ${SECONDS} s each at ${RATE}/s sent at fixed intervals (open loop) after a ${WARM_UP_SECONDS} s warm-up of each product: redemptions of a product without a connection, of the connected product, and signed checks sent straight to the marketplace (over kept connections, as the service's). Each figure is the median of the runs (min–max); latency from the request's start to its answer, ms.

| round | sent per second | p50 | p95 | p99 | failed |
|---|---|---|---|---|---|
${row('redemption, product without a connection', rounds.unconnected)}
${row('redemption, connected product (live check)', rounds.connected)}
${row("the marketplace's own answer to the check", rounds.check)}

The marketplace answered ${rounds.checked.toLocaleString('en-US')} checks for the ${(RUNS * RATE * SECONDS).toLocaleString('en-US')} connected redemptions measured. The connected redemption's p95 less the marketplace's own, run by run: **${formatSpread(extra, 1)} ms** (target ≤ ${TARGET_EXTRA_MS} ms: ${met ? 'met' : '**not met**'}); less the unconnected redemption's p95: ${formatSpread(overUnconnected, 1)} ms. The API (\`/proc\`): without a connection ${apiUse(rounds.unconnected)}; connected ${apiUse(rounds.connected)}; load average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(' / ')}.`;
  console.log(md);
  writeResult('marketplace', md);
}
