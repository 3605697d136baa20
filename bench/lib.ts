import { ChildProcess, execFileSync, spawn } from 'child_process';
import { Agent, request } from 'http';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { AddressInfo, createServer } from 'net';
import * as os from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { LicensePoolStartRepository } from '../backend/src/modules/license/license-pool-start.repository';
import { JwtService } from '@nestjs/jwt';
import { createHash, randomBytes } from 'crypto';
import { DataCipher } from '../backend/src/config/data-cipher';
import { sealedKeyColumns } from '../backend/src/modules/license/license.repository';
import { runMigrations } from '../backend/src/database/migrate';

export const ROOT = join(__dirname, '..');
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const BENCH_JWT_SECRET = 'bench-secret-bench-secret-bench-secret-0123';
/** 32 bytes, base64: production mode requires a DATA_KEY (licence keys sealed at rest). */
export const BENCH_DATA_KEY = Buffer.alloc(32, 7).toString('base64');

/**
 * Pool keys `${prefix}1` … `${prefix}${count}` for one product, written sealed under BENCH_DATA_KEY as the API
 * writes them (plain rows would be sealed by the API's start-up step, 500 per transaction, during the run).
 * Older keys first (`created_at` ascending with n), 10,000 rows per statement.
 */
export async function insertSealedKeys(
  pg: Client,
  productId: string,
  count: number,
  opts: { prefix?: string; downloadLink?: string; activations?: number } = {},
): Promise<void> {
  const cipher = new DataCipher(Buffer.from(BENCH_DATA_KEY, 'base64'));
  const prefix = opts.prefix ?? 'KEY-';
  for (let from = 1; from <= count; from += 10_000) {
    const ns = Array.from({ length: Math.min(10_000, count - from + 1) }, (_, i) => from + i);
    const sealed = ns.map((n) => sealedKeyColumns(cipher, `${prefix}${n}`));
    await pg.query(
      `INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, download_link, created_at, current_activations)
       SELECT $1, s.ciphertext, s.hash, s.last, $2, now() - make_interval(secs => $3 - s.n), $8
         FROM unnest($4::int[], $5::bytea[], $6::bytea[], $7::text[]) AS s(n, ciphertext, hash, last)`,
      [
        productId,
        opts.downloadLink ?? 'https://dl.example.com/k',
        count,
        ns,
        sealed.map((x) => x.ciphertext),
        sealed.map((x) => x.hash),
        sealed.map((x) => x.last),
        opts.activations ?? 0,
      ],
    );
  }
}

/** An admin user, an active session and a signed access token for it, as a login issues them (test/helpers/auth.ts). */
export async function adminToken(databaseUrl: string, role = 'admin'): Promise<string> {
  const pg = new Client({ connectionString: databaseUrl });
  await pg.connect();
  try {
    const username = `bench_${randomBytes(4).toString('hex')}`;
    const {
      rows: [user],
    } = await pg.query(
      `INSERT INTO admin_users (username, email, password_hash, salt, role) VALUES ($1, $2, 'x', 'x', $3) RETURNING id`,
      [username, `${username}@example.com`, role],
    );
    const {
      rows: [session],
    } = await pg.query(
      `INSERT INTO admin_sessions (admin_user_id, token, refresh_token, expires_at)
       VALUES ($1, $2, $3, now() + interval '7 days') RETURNING id`,
      [user.id, randomBytes(24).toString('base64url'), createHash('sha256').update(randomBytes(32)).digest('hex')],
    );
    return new JwtService().signAsync(
      { sub: user.id, sid: session.id, typ: 'access' },
      { secret: BENCH_JWT_SECRET, algorithm: 'HS256', expiresIn: '1h' },
    );
  } finally {
    await pg.end();
  }
}

/** Runs a shell command and returns its wall time in milliseconds. */
export function timeMs(fn: () => void): number {
  const started = process.hrtime.bigint();
  fn();
  return Number(process.hrtime.bigint() - started) / 1e6;
}

export async function timeAsync<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const started = process.hrtime.bigint();
  const value = await fn();
  return { ms: Number(process.hrtime.bigint() - started) / 1e6, value };
}

export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

export async function withDatabase<T>(fn: (url: string, name: string) => Promise<T>): Promise<T> {
  const name = `ovr_bench_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  try {
    return await fn(url.toString(), name);
  } finally {
    await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.end();
  }
}

/** `withDatabase`, migrated, with one client on it for the bench's own reads and writes (ended after `fn`). */
export function withMigratedDatabase<T>(fn: (url: string, pg: Client) => Promise<T>): Promise<T> {
  return withDatabase(async (url) => {
    await runMigrations(url);
    const pg = new Client({ connectionString: url });
    await pg.connect();
    try {
      return await fn(url, pg);
    } finally {
      await pg.end();
    }
  });
}

/** A product with a placeholder e-mail, for benches that only need codes to belong somewhere; its id. */
export async function insertPlainProduct(pg: Client, name: string): Promise<string> {
  const { rows } = await pg.query(
    `INSERT INTO products (name, email_subject, email_template) VALUES ($1, 'S', '<p>x</p>') RETURNING id`,
    [name],
  );
  return rows[0].id as string;
}

/** `psql \copy` of a CSV of `code,product_id` lines into `table`: its time in ms. */
export function psqlCopyCodes(url: string, table: string, file: string): number {
  return timeMs(() =>
    execFileSync('psql', [
      '-X',
      '-q',
      '-v',
      'ON_ERROR_STOP=1',
      url,
      '-c',
      `\\copy ${table} (code, product_id) from '${file}' with (format csv)`,
    ]),
  );
}

/** The compiled API (built first when missing), as `npm start` runs it. */
export async function startApi(
  env: Record<string, string>,
  /** `root`: another checkout's built API (api-cpu's before and after); `node`: another Node.js binary to run it. */
  opts: { args?: string[]; root?: string; node?: string } = {},
): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const root = opts.root ?? ROOT;
  const entry = join(root, 'dist', 'backend', 'src', 'main.js');
  if (!existsSync(entry)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: root, stdio: 'inherit' });
  const port = await freePort();
  const worker = (opts.args ?? []).includes('--worker');
  // e.g. BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the API under the benchmark's load
  const nodeArgs = (process.env.BENCH_API_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(opts.node ?? process.execPath, [...nodeArgs, entry, ...(opts.args ?? [])], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      JWT_SECRET: BENCH_JWT_SECRET,
      DATA_KEY: BENCH_DATA_KEY,
      LOG_LEVEL: 'warn',
      SERVE_FRONTEND: 'false',
      REDEEM_RATE_LIMIT: '0',
      DATA_DIR: join(ROOT, '.data', 'bench'),
      // Production refuses to start without a mail provider; a benchmark that measures mail passes its own server,
      // the others never send (nothing listens on the discard port).
      SMTP_URL: 'smtp://127.0.0.1:9',
      // Production refuses to start without its public address too (the links in e-mails).
      PUBLIC_URL: 'http://127.0.0.1',
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300 && !worker; i++) {
    try {
      if ((await fetch(`${url}/api/health`)).ok) break;
    } catch {
      // starting
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    url,
    child,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      // A graceful shutdown that hangs must not hang the benchmark: SIGKILL after 15 s (and say so).
      const timer = setTimeout(() => {
        console.warn(`process ${child.pid} did not exit 15 s after SIGTERM; killing it`);
        child.kill('SIGKILL');
      }, 15_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** Replaces the block between `<!-- bench:NAME -->` markers in docs/benchmarks.md. */
export function writeResult(name: string, markdown: string): void {
  const file = join(ROOT, 'docs', 'benchmarks.md');
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  let doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const start = doc.indexOf(begin);
  doc =
    start >= 0
      ? doc.slice(0, start) + block + doc.slice(doc.indexOf(end) + end.length)
      : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, doc);
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model?.trim()}, Node ${process.version}`;
}

/** Runs statements on a database with a client of its own (closed afterwards); answers the last one's rows. */
export async function sql(
  url: string,
  ...statements: Array<[string, unknown[]?]>
): Promise<Array<Record<string, any>>> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    let rows: Array<Record<string, any>> = [];
    for (const [text, params] of statements) rows = (await pg.query(text, params)).rows;
    return rows;
  } finally {
    await pg.end();
  }
}

/** How many times a figure is measured (BENCH_RUNS, default 3): it is reported as the median with its spread. */
export const RUNS = Number(process.env.BENCH_RUNS ?? 3);

export interface Spread {
  median: number;
  min: number;
  max: number;
  runs: number[];
}

/** The median and the range of some runs' figures. */
export function spread(runs: number[]): Spread {
  const sorted = [...runs].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  return { median, min: sorted[0], max: sorted[sorted.length - 1], runs };
}

/** Runs `measure` RUNS times, one after the other; answers every result and the spread of `figure` over them. */
export async function measured<T>(
  measure: (run: number) => Promise<T> | T,
  figure: (result: T) => number,
): Promise<{ results: T[]; spread: Spread }> {
  const results: T[] = [];
  for (let run = 0; run < RUNS; run++) results.push(await measure(run));
  return { results, spread: spread(results.map(figure)) };
}

/** "1,234 (1,180–1,301)": the median, then min–max of the runs (nothing more with one run). */
export function formatSpread(s: Spread, digits = 0): string {
  const f = (x: number) => x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  return s.runs.length > 1 ? `${f(s.median)} (${f(s.min)}–${f(s.max)})` : f(s.median);
}

/**
 * What a worker does while redemptions run (the `license.advance-pool-starts` job every POOL_START_INTERVAL_MS, one
 * second): each product's pool start moved to its first free key, on a connection of its own, for as long as `work` runs.
 * pgbench and the API (started without workers) both redeem with it, as a deployment's worker would have it.
 */
export async function withPoolStarts<T>(url: string, work: () => Promise<T> | T): Promise<T> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  // The repository over this connection (DatabaseService's `manager.query`, the only part it uses).
  const starts = new LicensePoolStartRepository({
    manager: { query: async (text: string, params?: unknown[]) => (await pg.query(text, params)).rows },
  } as unknown as ConstructorParameters<typeof LicensePoolStartRepository>[0]);
  let running = true;
  const loop = (async () => {
    while (running) {
      await starts.advance();
      await new Promise((r) => setTimeout(r, 1000));
    }
  })();
  try {
    // The loop's first move is on its way (the loop ran up to its first query): the work starts with the starts set.
    return await work();
  } finally {
    running = false;
    await loop;
    await pg.end();
  }
}

/**
 * One `POST /api/redeem-voucher` as the benchmarks' customer (Ann Lee, the redeem form's fields) for `code` and
 * `email`, on `agent` to `api` (the API's URL, parsed once by the caller): the answer's status, 0 if the request
 * failed.
 */
export function redeemRequest(agent: Agent, api: URL, code: string, email: string): Promise<number> {
  const body = JSON.stringify({
    voucherCode: code,
    firstName: 'Ann',
    lastName: 'Lee',
    email,
    phone: '+1 302 555 0100',
    acceptPrivacyPolicy: true,
    submissionTime: String(Date.now()),
    website: '',
    company_website: '',
  });
  return new Promise((resolve) => {
    const req = request(
      {
        agent,
        hostname: api.hostname,
        port: api.port,
        path: '/api/redeem-voucher',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', () => resolve(0));
    req.end(body);
  });
}

/**
 * An open loop: `send(i)` for i = 0 … total − 1, call i at start + i / rate whatever the answers before it; resolves
 * once every call has answered, with the rate the calls actually left at (a busy machine can fall behind).
 */
export async function openLoop(rate: number, total: number, send: (i: number) => Promise<void>): Promise<number> {
  const inFlight: Array<Promise<void>> = [];
  const start = Date.now();
  for (let i = 0; i < total; i++) {
    const wait = start + (i * 1000) / rate - Date.now();
    if (wait > 1) await new Promise((r) => setTimeout(r, wait));
    inFlight.push(send(i));
  }
  const achieved = total / ((Date.now() - start) / 1000);
  await Promise.all(inFlight);
  return achieved;
}
