import { ChildProcess, execFileSync, spawn } from 'child_process';
import { existsSync, readFileSync, writeFileSync } from 'fs';
import { AddressInfo, createServer } from 'net';
import * as os from 'os';
import { join } from 'path';
import { Client } from 'pg';

export const ROOT = join(__dirname, '..');
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

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

/** The compiled API (built first when missing), as `npm start` runs it. */
export async function startApi(env: Record<string, string>): Promise<{ url: string; child: ChildProcess; stop(): Promise<void> }> {
  const entry = join(ROOT, 'dist', 'backend', 'src', 'main.js');
  if (!existsSync(entry)) execFileSync('npx', ['tsc', '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'inherit' });
  const port = await freePort();
  const child = spawn(process.execPath, [entry], {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      PORT: String(port),
      JWT_SECRET: 'bench-secret-bench-secret-bench-secret-0123',
      LOG_LEVEL: 'warn',
      SERVE_FRONTEND: 'false',
      REDEEM_RATE_LIMIT: '0',
      DATA_DIR: join(ROOT, '.data', 'bench'),
      ...env,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
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
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Peak resident memory of a process so far (Linux), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/** Replaces the block between `<!-- bench:NAME -->` markers in docs/benchmarks.md. */
export function writeResult(name: string, markdown: string): void {
  const file = join(ROOT, 'docs', 'benchmarks.md');
  const begin = `<!-- bench:${name} -->`;
  const end = `<!-- /bench:${name} -->`;
  let doc = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const block = `${begin}\n${markdown.trim()}\n${end}`;
  const start = doc.indexOf(begin);
  doc = start >= 0 ? doc.slice(0, start) + block + doc.slice(doc.indexOf(end) + end.length) : `${doc.trimEnd()}\n\n${block}\n`;
  writeFileSync(file, doc);
}

export function machine(): string {
  const cpus = os.cpus();
  return `${cpus.length} × ${cpus[0]?.model?.trim()}, Node ${process.version}`;
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux). */
export function cpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}
