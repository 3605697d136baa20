/**
 * Redemption throughput: POST /api/redeem-voucher end to end (HTTP, validation, geo lookup, the one redemption
 * statement; the e-mail is queued by the workers' relay, not by the request) against the same SQL statement run by
 * pgbench on the same PostgreSQL, each with the pool starts moved every second beside it (`withPoolStarts`).
 * Targets: the API reaches at least 0.6 of pgbench's transactions per second (issue 26; 0.55 before it); pgbench on
 * the full schema (every index; the statement keeps its counters itself, there are no counter triggers since issue
 * 26) reaches at least 0.8 of pgbench on a schema with only the indexes a redemption needs (primary keys, unique
 * constraints, the pool index; user triggers disabled), a second database of the same server, each lean run right
 * after a full one (`interleaved`).
 *
 *   npm run bench -- redeem   (BENCH_SECONDS, BENCH_CLIENTS, BENCH_REDEEM_CODES, BENCH_API_INSTANCES, BENCH_API_ENV)
 *
 * The API's load comes from wrk (bench/wrk.ts), a C program as pgbench is, not from this Node.js process: on two
 * cores shared by the load, the API and PostgreSQL, the Node.js client it replaced used 0.15–0.20 ms of CPU per request
 * (a third of the API's own) against wrk's 0.03, and lowered the API's figure.
 *
 * BENCH_REDEEM_SOAK_SECONDS=180 adds a long run on the full schema after the API's: pgbench on codes of its own,
 * each client redeeming new codes in order (no repeats, so no cheap no-op transactions as codes run out), reported
 * in BENCH_REDEEM_SOAK_ROUNDS (3) consecutive rounds with no VACUUM between them, and how often autovacuum ran on
 * `license_keys` meanwhile. Without the per-table autovacuum settings (migration 1763835000000) the pool index's head
 * filled with dead entries and the rounds fell (2375 → 1328 tps within three minutes).
 */
import { execFile, execFileSync } from 'child_process';
import { writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { promisify } from 'util';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { REDEEM_SQL } from '../backend/src/modules/redemption/redemption.repository';
import { addPages, leanSchema, noPages, pageCounts, pagesPerRedemption, sumPages } from './redeem-schema';
import { listAvailableCodes, recountCounters } from './recount';
import {
  adminToken,
  formatSpread,
  insertSealedKeys,
  machine,
  REDIS_URL,
  RUNS,
  spread,
  sql,
  startApi,
  withPoolStarts,
  withDatabase,
  writeResult,
} from './lib';
import { cpuMs, postgresCpuMs, watchThreads } from './proc';
import { wrkRedeem, type WrkResult } from './wrk';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 16);
/** API processes (BENCH_API_INSTANCES, 1): more than one, each with a wrk of its own and a share of the clients. */
const INSTANCES = Number(process.env.BENCH_API_INSTANCES ?? 1);
/** More of the API's environment (BENCH_API_ENV="DB_PIPELINE_CONNECTIONS=0 …"): a setting measured against its default. */
const API_ENV: Record<string, string> = Object.fromEntries(
  (process.env.BENCH_API_ENV?.match(/\S+/g) ?? []).map((pair) => pair.split(/=(.*)/s, 2)),
);
/** Codes per range (BENCH_REDEEM_CODES); a pool key for every code of the three ranges. */
const CODES = Number(process.env.BENCH_REDEEM_CODES ?? 300_000);
const KEYS = 3 * CODES;
const SOAK_SECONDS = Number(process.env.BENCH_REDEEM_SOAK_SECONDS ?? 0);
const SOAK_ROUNDS = Number(process.env.BENCH_REDEEM_SOAK_ROUNDS ?? 3);
/** Codes per client for the soak: more than one client can redeem in the whole soak (about 300/s each at most; 16 clients on two cores reach about 3000/s in all). */
const SOAK_PER_CLIENT = Math.ceil(SOAK_SECONDS * 300);
/**
 * BENCH_RISK_RULES (off): `on` runs the API's rounds with every risk rule on (docs/product.md §25.1), `both` alternates a
 * rules-off and a rules-on round, each a new API process on the same database, and reports their ratio (issue 53).
 */
const RISK_MODE = (process.env.BENCH_RISK_RULES ?? 'off') as 'off' | 'on' | 'both';
if (!['off', 'on', 'both'].includes(RISK_MODE)) throw new Error('bench: BENCH_RISK_RULES is off, on or both');
type RiskMode = 'off' | 'on';
/**
 * BENCH_REDEEM_ADDRESSES (one): `many` sends each API request from an address of its own (X-Forwarded-For, the API
 * with TRUST_PROXY=loopback), as customers arrive, instead of every request from loopback, one address group.
 */
const MANY_ADDRESSES = process.env.BENCH_REDEEM_ADDRESSES === 'many';
/**
 * Every rule on, thresholds no benchmark round reaches: each redemption is counted and looked up by every rule and none
 * is held or refused (the codes' e-mails are distinct, the addresses one loopback group counted only in rules-on
 * rounds, `bench.test` is no disposable domain, the phone's country is the US and a loopback address has none).
 */
const RULES_ON = {
  emailPerDay: { enabled: true, threshold: 100_000, action: 'review' },
  addressPerHour: { enabled: true, threshold: 100_000, action: 'review' },
  disposableEmail: { enabled: true, action: 'review' },
  countryMismatch: { enabled: true, action: 'review' },
  blocklist: { enabled: true, action: 'refuse' },
};
const RULES_OFF = Object.fromEntries(
  Object.entries(RULES_ON).map(([rule, setting]) => [rule, { ...setting, enabled: false }]),
);

/** The rules set through the admin API (`PUT /api/risk/rules`), as an admin sets them. */
async function setRiskRules(apiUrl: string, token: string, mode: RiskMode): Promise<void> {
  const res = await fetch(`${apiUrl}/api/risk/rules`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(mode === 'on' ? RULES_ON : RULES_OFF),
  });
  if (!res.ok) throw new Error(`bench: PUT /api/risk/rules answered ${res.status} ${await res.text()}`);
}

/** One blocklist entry of each kind, none of them the benchmark's, so the blocklist's lookups find entries to match. */
async function seedBlocklist(apiUrl: string, token: string): Promise<void> {
  for (const [kind, value] of [
    ['email', 'blocked@bench.invalid'],
    ['domain', 'blocked.invalid'],
    ['address', '203.0.113.0/24'],
    ['phone', '+44 20 7946 0000'],
  ]) {
    const res = await fetch(`${apiUrl}/api/risk/blocklist`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ kind, value }),
    });
    if (!res.ok && res.status !== 409) throw new Error(`bench: POST /api/risk/blocklist answered ${res.status}`);
  }
}

/**
 * A licence-managed product with `codes` codes per prefix (`${prefix}1` …) and a sealed pool key for each of them,
 * vacuumed and analysed.
 */
export async function seedPool(pg: Client, prefixes: string[], codes: number): Promise<void> {
  const {
    rows: [product],
  } = await pg.query(
    `INSERT INTO products (name, is_license_managed, email_subject, email_template)
     VALUES ('Bench Pool (Windows)', true, 'Key', '<p>{{license_key}}</p>') RETURNING id`,
  );
  await pg.query(
    `INSERT INTO voucher_codes (code, product_id) SELECT p || n, $1 FROM generate_series(1, $2::int) n, unnest($3::text[]) p`,
    [product.id, codes, prefixes],
  );
  await insertSealedKeys(pg, product.id, codes * prefixes.length);
  // Seeded by SQL: the counters are rebuilt once (the redemptions then keep them, as in production).
  await recountCounters(pg, [product.id]);
  await pg.query('VACUUM ANALYZE');
}

async function seed(url: string): Promise<void> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  // Disjoint code ranges: WARM-n for the warm-up, PG-n for pgbench, HTTP-n for the API; a key for every code (the
  // pool never runs dry). The lean schema's database has codes of its own (`seedLean`).
  await seedPool(pg, ['WARM-', 'PG-', 'HTTP-'], CODES);
  if (SOAK_SECONDS > 0) {
    // Client c redeems SOAK-<c·1,000,000 + 1>, SOAK-<c·1,000,000 + 2>, …, each with a key of its own (see soak()).
    const {
      rows: [product],
    } = await pg.query(`SELECT id FROM products WHERE name = 'Bench Pool (Windows)'`);
    await pg.query(
      `INSERT INTO voucher_codes (code, product_id)
       SELECT 'SOAK-' || (c * 1000000 + n), $1 FROM generate_series(0, $2::int - 1) c, generate_series(1, $3::int) n`,
      [product.id, CLIENTS, SOAK_PER_CLIENT],
    );
    await insertSealedKeys(pg, product.id, CLIENTS * SOAK_PER_CLIENT, { prefix: 'SOAK-KEY-' });
    await listAvailableCodes(pg, [product.id]);
    await pg.query('VACUUM ANALYZE');
  }
  await pg.end();
}

/** The API's statement with pgbench variables: the code is `codeSql`, the e-mail made of `prefix` and `:${id}`. */
function redeemScript(prefix: string, codeSql: string, id = 'n'): string {
  return (
    REDEEM_SQL.replace(/--[^\n]*\n/g, '\n')
      .replace(/\s+/g, ' ')
      // The two-digit parameters first: `$10` would otherwise read as `$1` followed by 0. `$11`/`$12`: not held for
      // review (the risk rules off), no rules.
      .replace(/\$12\b/g, `NULL`)
      .replace(/\$11\b/g, `false`)
      .replace(/\$10\b/g, `sha256((md5(random()::text) || :${id})::bytea)`)
      .replace('$1', codeSql)
      .replace(/\$2/g, `'Ann'`)
      .replace(/\$3/g, `'Lee'`)
      .replace(/\$4/g, `'${prefix.toLowerCase()}' || :${id} || '@bench.test'`)
      .replace(/\$5/g, `NULL`)
      .replace(/\$6/g, `'127.0.0.1'`)
      .replace(/\$7/g, `NULL`)
      .replace(/\$8/g, `sha256((md5(random()::text) || :${id})::bytea)`)
      .replace(/\$9/g, `72`)
  );
}

/** Runs pgbench (asynchronously: the pool starts' loop goes on meanwhile); its transactions per second. */
async function runPgbench(url: string, script: string, seconds: number, extra: string[] = []): Promise<number> {
  const file = join(tmpdir(), `ovr-redeem-${process.pid}.pgbench`);
  writeFileSync(file, script);
  const { stdout: out } = await promisify(execFile)(
    'pgbench',
    ['-n', '-M', 'prepared', ...extra, '-f', file, '-c', String(CLIENTS), '-j', '2', '-T', String(seconds), url],
    { encoding: 'utf8' },
  );
  const tps = /tps = ([\d.]+)/.exec(out);
  if (!tps) throw new Error(out);
  return Number(tps[1]);
}

/** pgbench running REDEEM_SQL for SECONDS on codes `${prefix}1` … `${prefix}${codes}`; its transactions per second. */
export function pgbench(url: string, prefix = 'PG-', codes = CODES, seconds = SECONDS): Promise<number> {
  // Random codes can repeat (then it claims nothing, cheaply).
  return runPgbench(url, `\\set n random(1, ${codes})\n${redeemScript(prefix, `'${prefix}' || :n`)};\n`, seconds);
}

/**
 * A pgbench script in which each client redeems codes in order: its variable `counter` goes up by one a transaction
 * (pgbench keeps a client's variables from one transaction to the next) and `code`, an expression of it and
 * `:client_id`, numbers the code `${prefix}<n>`.
 */
function inOrderScript(prefix: string, counter: string, code: string): string {
  return `\\set ${counter} :${counter} + 1\n\\set c ${code}\n${redeemScript(prefix, `'${prefix}' || :c`, 'c')};\n`;
}

/**
 * pgbench on codes no transaction has used before, for the interleaved pairs: in run `run` of RUNS each client
 * redeems its own block of `${prefix}` codes in order. With random codes (`pgbench` above) a run's share of codes
 * already redeemed grew from run to run (a third, then two thirds of the range), and such a transaction claims
 * nothing, cheaply: later runs were partly no-ops, and the schema that redeemed more before (the lean one) had more.
 */
async function pgbenchFresh(url: string, prefix: string, run: number): Promise<number> {
  const perClient = Math.floor(CODES / (CLIENTS * RUNS));
  const script = inOrderScript(prefix, 'k', `:k * ${CLIENTS} + :client_id + 1`);
  const tps = await runPgbench(url, script, SECONDS, ['-D', `k=${run * perClient - 1}`]);
  if ((tps * SECONDS) / CLIENTS > perClient) {
    console.warn(
      `${prefix} run ${run + 1}: ${tps.toFixed(0)} tps used more codes than a block holds: raise BENCH_REDEEM_CODES`,
    );
  }
  return tps;
}

/**
 * The soak: SOAK_SECONDS of pgbench in SOAK_ROUNDS rounds, no VACUUM between them; each client redeems its own codes
 * in order (pgbench keeps a client's variables from one transaction to the next), continuing across rounds.
 */
async function soak(url: string): Promise<{ rounds: number[]; autovacuums: number; deadAtEnd: number }> {
  const stats = async () =>
    (
      await sql(url, [
        `SELECT autovacuum_count::int AS autovacuums, n_dead_tup::int AS dead FROM pg_stat_user_tables WHERE relname = 'license_keys'`,
      ])
    )[0];
  const before = await stats();
  const rounds: number[] = [];
  const perRound = Math.max(1, Math.round(SOAK_SECONDS / SOAK_ROUNDS));
  for (let round = 0; round < SOAK_ROUNDS; round++) {
    const from = round * Math.ceil((SOAK_PER_CLIENT * perRound) / SOAK_SECONDS);
    const script = inOrderScript('SOAK-', 'n', ':client_id * 1000000 + :n');
    // Each round starts its clients past the codes the rounds before could have used.
    rounds.push(await runPgbench(url, script, perRound, ['-D', `n=${from}`]));
    console.log(`soak round ${round + 1}: ${rounds[round].toFixed(0)} tps`);
  }
  await new Promise((r) => setTimeout(r, 1000)); // the statistics collector's last report
  const after = await stats();
  return { rounds, autovacuums: after.autovacuums - before.autovacuums, deadAtEnd: after.dead };
}

/** Codes HTTP-1, HTTP-2, … are used once each across the warm-up and the measured runs. */
let next = 1;

/** One run against `urls`, one API process each: a wrk process per API, the CLIENTS shared out among them. */
async function http(urls: string[]): Promise<WrkResult> {
  const runs = await Promise.all(
    urls.map((url, i) =>
      wrkRedeem(url, {
        clients: Math.floor(CLIENTS / urls.length) + (i < CLIENTS % urls.length ? 1 : 0),
        seconds: SECONDS,
        prefix: 'HTTP-',
        start: next + i,
        step: urls.length,
        manyAddresses: MANY_ADDRESSES,
      }),
    ),
  );
  next = Math.max(...runs.map((r) => r.last)) + 1;
  if (next > CODES) throw new Error(`bench: the runs used ${next - 1} HTTP- codes, more than BENCH_REDEEM_CODES`);
  const rps = runs.reduce((sum, r) => sum + r.rps, 0);
  return {
    rps,
    ok: runs.reduce((sum, r) => sum + r.ok, 0),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    p50: Math.max(...runs.map((r) => r.p50)),
    p99: Math.max(...runs.map((r) => r.p99)),
    last: next - 1,
    loadCpuMs: runs.reduce((sum, r) => sum + r.loadCpuMs * r.rps, 0) / rps,
  };
}

/** One mode's API rounds: req/s of each; CPU per redemption of the APIs and of PostgreSQL; main-thread shares. */
interface ApiRounds {
  spread: ReturnType<typeof spread>;
  median: WrkResult;
  cpuMs: number;
  postgresCpuMs: number;
  thread: { running: number; waiting: number };
}

/**
 * RUNS measured runs, each on `instances` new API processes on the full schema (workers off, as a scaled-out
 * deployment's APIs: they queue nothing, the workers' relay queues the e-mails) after a warm-up run of their own: one
 * process kept its own CPU figure run after run, up to 1.4 times another's of the same build (`api-cpu`,
 * docs/benchmarks.md "One process per round"), so each run's figures are a new process's. Each run has a round per
 * risk mode (`modes`: rules off, then rules on, when BENCH_RISK_RULES=both), each on new processes, the rules set
 * through the admin API of the round's first process before its warm-up. Answers, per mode, req/s over the runs and
 * the median run; CPU per redemption of the APIs and of PostgreSQL (every process of the server) over all runs; the
 * mean shares of the runs' time the APIs' main threads were on a core and waited for one.
 */
async function apiRuns(url: string, instances: number, modes: RiskMode[]): Promise<Record<RiskMode, ApiRounds>> {
  const prefix = `bench-${Date.now()}`;
  const env = {
    DATABASE_URL: url,
    REDIS_URL,
    REDIS_PREFIX: prefix,
    WORKERS_IN_API: 'false',
    ...(MANY_ADDRESSES ? { TRUST_PROXY: 'loopback' } : {}),
    ...API_ENV,
  };
  const token = await adminToken(url);
  const blank = () => ({ cpu: 0, postgres: 0, requests: 0, running: 0, waiting: 0, results: [] as WrkResult[] });
  const sums = { off: blank(), on: blank() };
  const round = async (mode: RiskMode) => {
    const sum = sums[mode];
    const apis: Array<Awaited<ReturnType<typeof startApi>>> = [];
    try {
      for (let i = 0; i < instances; i++) apis.push(await startApi(env));
      const urls = apis.map((api) => api.url);
      if (modes.includes('on')) await setRiskRules(urls[0], token, mode);
      await withPoolStarts(url, () => http(urls)); // warm-up
      const cpu = () => apis.reduce((total, api) => total + cpuMs(api.child.pid!), 0);
      const [cpuBefore, pgBefore] = [cpu(), await postgresCpuMs(url)];
      const threads = watchThreads(apis.map((api) => api.child.pid!));
      const result = await withPoolStarts(url, () => http(urls));
      const thread = threads();
      sum.cpu += cpu() - cpuBefore;
      sum.postgres += (await postgresCpuMs(url)) - pgBefore;
      sum.requests += result.rps * SECONDS;
      sum.running += thread.running / RUNS;
      sum.waiting += thread.waiting / RUNS;
      sum.results.push(result);
      console.log(`API round, rules ${mode}: ${result.rps.toFixed(0)} req/s, ${result.errors} errors`);
    } finally {
      for (const api of apis) await api.stop();
    }
  };
  try {
    if (modes.includes('on')) {
      const api = await startApi(env);
      try {
        await seedBlocklist(api.url, token);
      } finally {
        await api.stop();
      }
    }
    for (let run = 0; run < RUNS; run++) for (const mode of modes) await round(mode);
    const summary = (mode: RiskMode): ApiRounds => {
      const sum = sums[mode];
      const rps = spread(sum.results.map((r) => r.rps));
      return {
        spread: rps,
        // The latencies and errors of the median run.
        median: sum.results.find((r) => r.rps === rps.median) ?? sum.results[0],
        cpuMs: sum.cpu / sum.requests,
        postgresCpuMs: sum.postgres / sum.requests,
        thread: { running: sum.running, waiting: sum.waiting },
      };
    };
    return Object.fromEntries(modes.map((mode) => [mode, summary(mode)])) as Record<RiskMode, ApiRounds>;
  } finally {
    execFileSync('sh', ['-c', `redis-cli --scan --pattern '${prefix}:*' | xargs -r redis-cli del > /dev/null`]);
  }
}

/** One schema's pgbench runs: tps of each; pages, PostgreSQL CPU and WAL per redemption over all of them. */
interface SchemaRuns {
  tps: number[];
  pages: Array<{ name: string; pages: number }>;
  cpu: number;
  wal: { bytes: number; fullPages: number };
}

/** The server's WAL written so far (`pg_stat_wal`, cluster-wide: one run at a time here): bytes, full-page images. */
async function walCounts(url: string): Promise<{ bytes: number; fullPages: number }> {
  const [row] = await sql(url, [`SELECT wal_bytes::float8 AS bytes, wal_fpi::float8 AS fpi FROM pg_stat_wal`]);
  return { bytes: Number(row.bytes), fullPages: Number(row.fpi) };
}

/**
 * The full and the lean schema's pgbench runs, interleaved: RUNS pairs, each the full schema's run then the lean one's
 * right after it, on two databases of the same server. The machine's speed drifts between minutes, by up to 1.5x within
 * one benchmark here; a pair's two runs share the drift, so the ratio is each pair's and the figure their median. Each
 * run starts right after a CHECKPOINT (a page's first change after one writes the whole page into the WAL: where a run
 * fell in the 15-20 s cycle moved its pair by up to ±0.1) and a VACUUM (the development machine's server has no
 * autovacuum, and the runs before left their dead rows in both schemas). The full schema's extra WAL still brings its
 * next checkpoint sooner, a cost of its indexes the figures keep.
 */
async function interleaved(fullUrl: string, leanUrl: string): Promise<{ full: SchemaRuns; lean: SchemaRuns }> {
  const runs = { full: { url: fullUrl, prefix: 'PG-' }, lean: { url: leanUrl, prefix: 'LEAN-' } };
  const result = { full: { tps: [] as number[] }, lean: { tps: [] as number[] } };
  const pages = { full: noPages(), lean: noPages() };
  const cpu = { full: 0, lean: 0 };
  const wal = { full: { bytes: 0, fullPages: 0 }, lean: { bytes: 0, fullPages: 0 } };
  for (let run = 0; run < RUNS; run++) {
    for (const schema of ['full', 'lean'] as const) {
      const { url, prefix } = runs[schema];
      // The runs before it vacuumed away, as autovacuum would between bursts (this server runs without it: "Method").
      // The VACUUM's own page reads (a GIN index's cleanup reads every page of it) are reported before the run's count
      // starts: they are the VACUUM's, not the redemptions'.
      await sql(url, ['VACUUM'], ['CHECKPOINT'], ['SELECT pg_stat_force_next_flush()']);
      const [started, walBefore, pagesBefore] = [await postgresCpuMs(url), await walCounts(url), await pageCounts(url)];
      result[schema].tps.push(await withPoolStarts(url, () => pgbenchFresh(url, prefix, run)));
      // pgbench's backends report their CPU, buffer and WAL statistics as they exit.
      await new Promise((r) => setTimeout(r, 500));
      cpu[schema] += (await postgresCpuMs(url)) - started;
      addPages(pages[schema], pagesBefore, await pageCounts(url));
      const walAfter = await walCounts(url);
      wal[schema].bytes += walAfter.bytes - walBefore.bytes;
      wal[schema].fullPages += walAfter.fullPages - walBefore.fullPages;
    }
  }
  const summary = (schema: 'full' | 'lean'): SchemaRuns => {
    const made = Math.max(1, pages[schema].redemptions);
    return {
      tps: result[schema].tps,
      pages: pagesPerRedemption(pages[schema]),
      cpu: cpu[schema] / made,
      wal: { bytes: wal[schema].bytes / made, fullPages: wal[schema].fullPages / made },
    };
  };
  return { full: summary('full'), lean: summary('lean') };
}

/**
 * The lean schema's database: the same migrations and a pool of the same size as the full schema's (three ranges of
 * codes and their keys, so its tables and indexes are as large: WARM- and LEAN- redeemed, SPARE- never), then
 * `leanSchema`.
 */
async function seedLean(url: string): Promise<string[]> {
  await runMigrations(url);
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    await seedPool(pg, ['WARM-', 'LEAN-', 'SPARE-'], CODES);
  } finally {
    await pg.end();
  }
  return leanSchema(url);
}

/**
 * The rules' cost, side by side: each run's rules-on round over the rules-off round right before it (the pairs share
 * the machine's drift), API / pgbench each way, and the CPU per redemption. The full/lean pairs run pgbench on the
 * statement, which the rules do not change: the rules' work is the API's (counter upserts, blocklist lookups).
 */
function riskComparison(off: ApiRounds, on: ApiRounds, tps: number, held: number): string {
  const pairs = spread(on.spread.runs.map((rps, i) => rps / off.spread.runs[i]));
  return `

Risk rules (\`BENCH_RISK_RULES=both\`, issue 53): every rule on through \`PUT /api/risk/rules\` (thresholds 100,000, a blocklist entry of each kind, none matching), ${MANY_ADDRESSES ? 'each request from an address of its own (`BENCH_REDEEM_ADDRESSES=many`)' : 'every request from loopback (one address group, one counter row)'}, each run's rules-on round right after its rules-off round on the same database. Rules on / rules off = **${pairs.median.toFixed(2)}** (the pairs ${pairs.runs.map((r) => r.toFixed(2)).join(', ')}; target ≥ 0.95); API / pgbench ${(off.spread.median / tps).toFixed(2)} rules off, ${(on.spread.median / tps).toFixed(2)} rules on; the API's CPU per redemption ${off.cpuMs.toFixed(2)} ms rules off, ${on.cpuMs.toFixed(2)} ms rules on, PostgreSQL's ${off.postgresCpuMs.toFixed(2)} and ${on.postgresCpuMs.toFixed(2)} ms. Redemptions held or refused: ${held}. Full/lean is pgbench's, on the same statement either way.`;
}

export async function main(): Promise<void> {
  await withDatabase((url) => withDatabase((leanUrl) => measure(url, leanUrl)));
}

async function measure(url: string, leanUrl: string): Promise<void> {
  await runMigrations(url);
  await seed(url);
  const dropped = await seedLean(leanUrl);
  // A warm-up first on each, as the API has one: the seed leaves `customers`, `redemptions` and the others' new rows
  // empty, and their first thousands of inserts (16 clients extending empty tables, no free-space map yet) read 3–8
  // times the heap pages of the steady state (customers 34 against 4 per redemption).
  for (const warm of [url, leanUrl]) {
    await withPoolStarts(warm, () => pgbench(warm, 'WARM-', CODES, Math.min(SECONDS, 10)));
  }
  const schemas = await interleaved(url, leanUrl);
  const [full, lean] = [spread(schemas.full.tps), spread(schemas.lean.tps)];
  const pairs = spread(schemas.full.tps.map((tps, i) => tps / schemas.lean.tps[i]));
  const [fullPages, leanPages] = [schemas.full.pages, schemas.lean.pages];
  const [fullCpu, leanCpu] = [schemas.full.cpu, schemas.lean.cpu];
  const tps = full.median;
  const modes: RiskMode[] = RISK_MODE === 'both' ? ['off', 'on'] : [RISK_MODE];
  const byMode = await apiRuns(url, INSTANCES, modes);
  const api = byMode[modes[0]];
  // Nothing may have been held or refused: with the rules on the outcome is meant to be the same, only the checks added.
  const [{ held }] = await sql(url, [`SELECT count(*)::int AS held FROM redemptions WHERE held_at IS NOT NULL`]);
  const risk = byMode.on && byMode.off ? riskComparison(byMode.off, byMode.on, tps, Number(held)) : '';
  const soaked = SOAK_SECONDS > 0 ? await withPoolStarts(url, () => soak(url)) : undefined;
  const md = `## Redemption throughput

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${CLIENTS} concurrent clients, ${SECONDS} s per run, each figure the median of ${RUNS} runs (min–max in brackets), a pool of ${KEYS.toLocaleString('en-US')} keys; beside every run the pool starts move every second, as a worker's \`license.advance-pool-starts\` job moves them.

| what | per second | latency p50 / p99 |
|---|---|---|
| pgbench running the redemption statement (prepared), full schema | ${formatSpread(full)} tps | |
| pgbench, same statement, lean schema (only the indexes a redemption needs) | ${formatSpread(lean)} tps | |
| \`POST /api/redeem-voucher\` over HTTP (validation, geo, statement; no job queued: the workers' relay queues the e-mail), ${INSTANCES === 1 ? 'one API process' : `${INSTANCES} API processes`} (new for each run)${process.env.BENCH_API_ENV ? `, \`${process.env.BENCH_API_ENV}\`` : ''}, risk rules ${modes[0]} | ${formatSpread(api.spread)} req/s (${api.median.errors} errors) | ${api.median.p50.toFixed(1)} / ${api.median.p99.toFixed(1)} ms |
${byMode.on && modes.length > 1 ? `| the same, every risk rule on (\`BENCH_RISK_RULES=both\`: a rules-on round right after each rules-off one) | ${formatSpread(byMode.on.spread)} req/s (${byMode.on.median.errors} errors) | ${byMode.on.median.p50.toFixed(1)} / ${byMode.on.median.p99.toFixed(1)} ms |\n` : ''}
API / pgbench = **${(api.spread.median / tps).toFixed(2)}**, CPU per redemption: the API **${api.cpuMs.toFixed(2)} ms**, PostgreSQL ${api.postgresCpuMs.toFixed(2)} ms; target ≥ 0.6 at ≤ 0.5 ms. Full schema / lean schema = **${pairs.median.toFixed(2)}** (the median of ${RUNS} pairs' ratios, ${pairs.runs.map((r) => r.toFixed(2)).join(', ')}: each pair the full schema's run and, right after it, the lean one's, on two databases of the same server; target ≥ 0.8; the lean schema dropped ${dropped.join(', ')}; neither schema has counter triggers since issue 26, both run the statement's own counter upserts). Load generator (wrk, one process per API, ${api.median.loadCpuMs.toFixed(3)} ms of CPU per request; pgbench for the statement), API and PostgreSQL share the same cores: the API's main thread, which every request and every answer from PostgreSQL and Redis passes, was on a core ${(100 * api.thread.running).toFixed(0)}% of the runs' time and waited for one ${(100 * api.thread.waiting).toFixed(0)}% (\`/proc/<pid>/schedstat\`).

Pages per redemption (buffer hits and reads of the redemption's tables and their indexes, \`pg_statio_user_*\`: a figure of the schema, not of the machine's speed): full schema **${sumPages(fullPages).toFixed(1)}**, lean schema **${sumPages(leanPages).toFixed(1)}** (ratio ${(sumPages(leanPages) / Math.max(sumPages(fullPages), 1e-9)).toFixed(2)}). PostgreSQL's CPU per redemption (every process of the server, \`postgresCpuMs\`: without the CPU of the load generator, which shares the cores): full schema **${fullCpu.toFixed(3)} ms**, lean schema **${leanCpu.toFixed(3)} ms** (ratio ${(leanCpu / Math.max(fullCpu, 1e-9)).toFixed(2)}). WAL per redemption (\`pg_stat_wal\`; each run starts right after a CHECKPOINT): full schema **${(schemas.full.wal.bytes / 1024).toFixed(1)} KB** with ${schemas.full.wal.fullPages.toFixed(2)} full-page images, lean schema **${(schemas.lean.wal.bytes / 1024).toFixed(1)} KB** with ${schemas.lean.wal.fullPages.toFixed(2)} (ratio ${(schemas.lean.wal.bytes / Math.max(schemas.full.wal.bytes, 1e-9)).toFixed(2)}). Full schema pages by index and table: ${fullPages.map((p) => `${p.name} ${p.pages.toFixed(1)}`).join(', ')}.${risk}${
    soaked
      ? `

Soak (\`BENCH_REDEEM_SOAK_SECONDS=${SOAK_SECONDS}\`): pgbench on the full schema for ${SOAK_SECONDS} s in ${SOAK_ROUNDS} rounds with no VACUUM between them, every transaction a new code: ${soaked.rounds.map((t) => `${t.toFixed(0)}`).join(' → ')} tps. Autovacuum ran ${soaked.autovacuums} time(s) on \`license_keys\` meanwhile; ${soaked.deadAtEnd.toLocaleString('en-US')} dead rows at the end.`
      : ''
  }`;
  console.log(md);
  writeResult('redeem', md);
}
