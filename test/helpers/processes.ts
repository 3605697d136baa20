import { ChildProcess, execFileSync, spawn } from 'child_process';
import { readdirSync, readFileSync, readlinkSync } from 'fs';
import { join } from 'path';
import { request as httpRequest } from 'http';
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { stale } = require('../../scripts/build-state');

const ROOT = join(__dirname, '..', '..');
const MAIN = join(ROOT, 'dist', 'backend', 'src', 'main.js');
/** The built entry points (what `npm start` and `npm run admin` run), up to date once global-setup has run. */
export const BUILT_MAIN = MAIN;
export const BUILT_CLI = join(ROOT, 'dist', 'backend', 'src', 'cli.js');

/**
 * Settings for an app that never sends a stored redemption's pending e-mail: its sweep takes rows pending for over ten
 * years, and its relay (new redemptions' e-mails) first reads a day after the start. For data a test or benchmark
 * writes straight into the tables and wants left as it is.
 */
export const NO_MAIL_OUTBOX_ENV = {
  MAIL_SWEEP_AFTER_MS: String(10 * 365 * 86_400_000),
  MAIL_RELAY_INTERVAL_MS: String(86_400_000),
};

/** The built API (`dist/`), compiled when missing or older than backend/src, as `npm start` does (test/global-setup.ts). */
export function buildBackendIfStale(): void {
  if (!stale(MAIN, [join(ROOT, 'backend', 'src'), join(ROOT, 'ormconfig.ts')])) return;
  execFileSync(
    process.execPath,
    [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'],
    {
      cwd: ROOT,
      stdio: 'inherit',
    },
  );
}

/** A process the test started: its output is kept (shown when a test fails) and it is killed when the test run ends. */
export interface Spawned {
  name: string;
  child: ChildProcess;
  output(): string;
  /** The JSON log lines it printed on stdout so far (pino), parsed. */
  logLines(): Array<Record<string, any>>;
  exited(): boolean;
  /** SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

const running = new Set<Spawned>();
// If the test process ends with some still running (Ctrl-C, a crash), they end with it.
process.once('exit', () => running.forEach((p) => p.child.kill('SIGKILL')));

/**
 * Stops every process this test file started that still runs, also those a failed helper never handed back:
 * call it in afterAll, so a failing suite leaves nothing behind (and Jest is not held open by their pipes).
 */
export async function stopAllSpawned(graceMs?: number): Promise<void> {
  await Promise.all([...running].map((p) => p.stop(graceMs)));
}

export function spawnTracked(name: string, command: string, args: string[], env: NodeJS.ProcessEnv): Spawned {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let pending = '';
  const lines: Array<Record<string, any>> = [];
  child.stdout!.on('data', (chunk) => {
    output += chunk;
    const parts = (pending + chunk).split('\n');
    pending = parts.pop()!;
    for (const line of parts) {
      if (!line.startsWith('{')) continue;
      try {
        lines.push(JSON.parse(line));
      } catch {
        // not a log line
      }
    }
  });
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = () => child.exitCode !== null || child.signalCode !== null;
  const spawned: Spawned = {
    name,
    child,
    output: () => output,
    logLines: () => lines,
    exited,
    stop: async (graceMs = 10_000) => {
      if (exited()) return;
      const done = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await done;
      clearTimeout(timer);
    },
  };
  running.add(spawned);
  child.once('exit', () => running.delete(spawned));
  return spawned;
}

/** `node dist/backend/src/main.js [--worker | --demo]` with exactly `env` (plus PATH). */
export function startBuiltApp(
  name: string,
  env: Record<string, string>,
  opts: { worker?: boolean; demo?: boolean } = {},
): Spawned {
  const args = [...(opts.worker ? ['--worker'] : []), ...(opts.demo ? ['--demo'] : [])];
  return spawnTracked(name, process.execPath, [MAIN, ...args], {
    PATH: process.env.PATH,
    ...env,
  });
}

/** Resolves once `check` is true; fails with `what` and the processes' output after `timeoutMs`. */
export async function waitUntil(
  what: string,
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 30_000, processes = [] as Spawned[] } = {},
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const died = processes.find((p) => p.exited());
    if (died) throw new Error(`${died.name} exited while waiting for ${what}:\n${died.output().slice(-4000)}`);
    try {
      if (await check()) return;
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) {
      const logs = processes.map((p) => `--- ${p.name}\n${p.output().slice(-2000)}`).join('\n');
      throw new Error(`timed out waiting for ${what}\n${logs}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

export interface HttpAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: any;
}

/**
 * One HTTP request over a new connection from the local address `from` (any 127.x.y.z on Linux), so a test can
 * be several clients as a proxy in front of the service sees them. Network errors answer status 0.
 */
export function httpFrom(
  from: string,
  url: string,
  opts: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<HttpAnswer> {
  const payload = opts.body === undefined ? undefined : Buffer.from(JSON.stringify(opts.body));
  return new Promise((resolve) => {
    const req = httpRequest(
      url,
      {
        method: opts.method ?? (payload ? 'POST' : 'GET'),
        localAddress: from,
        agent: false,
        headers: {
          ...(payload ? { 'content-type': 'application/json', 'content-length': String(payload.length) } : {}),
          ...opts.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let body: any = text;
          try {
            body = JSON.parse(text);
          } catch {
            // not JSON
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body });
        });
        res.on('error', () => resolve({ status: 0, headers: {}, body: null }));
      },
    );
    req.on('error', () => resolve({ status: 0, headers: {}, body: null }));
    req.end(payload);
  });
}

/** The processes whose parent is `pid`, with their command lines (Linux /proc). */
export function childProcesses(pid: number): Array<{ pid: number; args: string }> {
  const found: Array<{ pid: number; args: string }> = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid !== pid) continue;
      found.push({
        pid: Number(entry),
        args: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim(),
      });
    } catch {
      // exited meanwhile
    }
  }
  return found;
}

/**
 * Which of `pids` holds the TCP connection from local port `localPort` to remote port `remotePort` on this machine
 * (Linux /proc: the socket's inode in /proc/net/tcp, then the process with a descriptor on it); undefined if none.
 */
export function tcpConnectionOwner(localPort: number, remotePort: number, pids: number[]): number | undefined {
  const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');
  let inode: string | undefined;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      if (fields.length < 10) continue;
      if (fields[1].endsWith(`:${hex(localPort)}`) && fields[2].endsWith(`:${hex(remotePort)}`)) inode = fields[9];
    }
  }
  if (!inode) return undefined;
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`) return pid;
      } catch {
        // closed meanwhile
      }
    }
  }
  return undefined;
}
