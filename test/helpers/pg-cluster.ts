import { execFile } from 'child_process';
import { appendFileSync, chownSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { AddressInfo, connect, createServer, Server, Socket } from 'net';
import { Client } from 'pg';
import { childProcesses, waitUntil } from './processes';
import { freePort } from './smtp';

/**
 * Private PostgreSQL clusters on loopback for the failure suites that stop, kill or promote a server
 * (test/failure-failover.e2e-spec.ts, test/failure-database-restart.e2e-spec.ts): the machine's shared cluster stays
 * untouched. Built with the installed PostgreSQL's own tools (initdb, pg_ctl, pg_basebackup) under a temp directory;
 * as the `postgres` user when the test runs as root (initdb refuses root). `removeAllClusters` (afterAll, and the
 * test process's exit) kills what still runs and deletes the directories.
 */

const BIN = process.env.TEST_PG_BIN ?? '/usr/lib/postgresql/15/bin';
const AS_ROOT = process.getuid?.() === 0;

export interface PgCluster {
  name: string;
  port: number;
  dataDir: string;
  /** A connection URL to `database` on this cluster (trust auth, user postgres). */
  url(database?: string): string;
  /** `pg_ctl start -w`: returns once it accepts connections (a standby: once it accepts read-only ones). */
  start(): Promise<void>;
  /** `pg_ctl stop -m <mode>`: `fast` ends the sessions and refuses new connections until `start`. */
  stop(mode?: 'smart' | 'fast' | 'immediate'): Promise<void>;
  /** SIGKILL to the postmaster and every process of the cluster at once (a crashed machine); resolves once gone. */
  kill(): Promise<void>;
  /** `pg_ctl promote -w`: a standby becomes a primary; resolves once it accepts writes. */
  promote(): Promise<void>;
  /**
   * A standby only: from now on the network between it and its primary holds the primary's WAL back (a slow or
   * congested link); what it holds when the primary dies never arrives.
   */
  holdReplication(): void;
  /** Whether it answers and is not in recovery (a primary). */
  isPrimary(): Promise<boolean>;
}

const roots = new Set<string>();
const links = new Set<ReplicationLink>();
const started = new Set<PgCluster & { postmasterPid(): number | undefined }>();

process.once('exit', () => {
  for (const cluster of started) {
    const pid = cluster.postmasterPid();
    for (const p of pid ? [pid, ...childProcesses(pid).map((c) => c.pid)] : []) {
      try {
        process.kill(p, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }
  // The killed servers may still be closing their files: a few tries.
  for (const root of roots) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
});

function run(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  const withEnv = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), command, ...args];
  const [file, argv] = AS_ROOT ? ['runuser', ['-u', 'postgres', '--', 'env', ...withEnv]] : ['env', withEnv];
  return new Promise((resolve, reject) =>
    // Asynchronous: the API under test serves from this process meanwhile.
    execFile(file, argv, { timeout: 60_000 }, (err, stdout, stderr) =>
      err ? reject(new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stderr}`)) : resolve(stdout),
    ),
  );
}

function makeRoot(): string {
  const root = mkdtempSync(join(tmpdir(), 'ovr-pg-'));
  roots.add(root);
  if (AS_ROOT) {
    const { uid, gid } = statSync('/var/lib/postgresql');
    chownSync(root, uid, gid);
  }
  return root;
}

function alive(pid: number): boolean {
  try {
    // A zombie (killed, not yet reaped by its parent) is gone for our purposes.
    return !/^\S+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The standby's way to its primary: a TCP relay in this process that can hold the primary's bytes back. */
interface ReplicationLink {
  port: number;
  held: boolean;
  server: Server;
  sockets: Set<Socket>;
}

async function startLink(upstreamPort: number): Promise<ReplicationLink> {
  const sockets = new Set<Socket>();
  const server = createServer((downstream) => {
    const upstream = connect(upstreamPort, '127.0.0.1');
    sockets.add(downstream).add(upstream);
    const end = () => {
      // What is held is dropped with the connection: the bytes were still on the wire.
      upstream.destroy();
      downstream.destroy();
      sockets.delete(upstream);
      sockets.delete(downstream);
    };
    upstream.on('error', end).on('close', end);
    downstream.on('error', end).on('close', end);
    downstream.on('data', (chunk) => upstream.write(chunk));
    upstream.on('data', (chunk) => {
      if (!link.held) downstream.write(chunk);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const link: ReplicationLink = { port: (server.address() as AddressInfo).port, held: false, server, sockets };
  links.add(link);
  return link;
}

/**
 * libfaketime (Debian's libfaketime, .ci/run installs it): the server's clock `seconds` ahead of the machine's (behind
 * when negative), for every process of the cluster.
 */
const FAKETIME_LIBRARY = process.env.TEST_FAKETIME_LIB ?? '/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1';

function clockEnv(offsetSeconds?: number): Record<string, string> {
  if (offsetSeconds === undefined) return {};
  if (!existsSync(FAKETIME_LIBRARY)) {
    throw new Error(`libfaketime is missing (${FAKETIME_LIBRARY}): apt-get install libfaketime`);
  }
  const offset = Math.round(offsetSeconds);
  return {
    LD_PRELOAD: FAKETIME_LIBRARY,
    FAKETIME: `${offset >= 0 ? '+' : ''}${offset}`,
    FAKETIME_DONT_RESET: '1',
    FAKETIME_NO_CACHE: '1',
  };
}

function cluster(
  name: string,
  root: string,
  port: number,
  link?: ReplicationLink,
  clockOffsetSeconds?: number,
): PgCluster & { postmasterPid(): number | undefined } {
  const dataDir = join(root, name);
  const log = join(root, `${name}.log`);
  const postmasterPid = () => {
    const file = join(dataDir, 'postmaster.pid');
    return existsSync(file) ? Number(readFileSync(file, 'utf8').split('\n')[0]) : undefined;
  };
  const url = (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`;
  const self = {
    name,
    port,
    dataDir,
    url,
    postmasterPid,
    start: async () => {
      await run(
        join(BIN, 'pg_ctl'),
        ['start', '-w', '-t', '60', '-D', dataDir, '-l', log],
        clockEnv(clockOffsetSeconds),
      );
      started.add(self);
    },
    stop: async (mode: 'smart' | 'fast' | 'immediate' = 'fast') => {
      await run(join(BIN, 'pg_ctl'), ['stop', '-w', '-t', '60', '-m', mode, '-D', dataDir]);
      started.delete(self);
    },
    kill: async () => {
      const pid = postmasterPid();
      if (!pid) throw new Error(`${name} is not running`);
      const pids = [pid, ...childProcesses(pid).map((c) => c.pid)];
      for (const p of pids) {
        try {
          process.kill(p, 'SIGKILL');
        } catch {
          // ended meanwhile
        }
      }
      await waitUntil(`${name}'s processes to end`, () => !pids.some(alive), { timeoutMs: 10_000 });
      started.delete(self);
    },
    promote: async () => {
      await run(join(BIN, 'pg_ctl'), ['promote', '-w', '-t', '60', '-D', dataDir]);
    },
    holdReplication: () => {
      if (!link) throw new Error(`${name} is no standby`);
      link.held = true;
    },
    isPrimary: async () => {
      const client = new Client({ connectionString: url(), connectionTimeoutMillis: 1_000 });
      client.on('error', () => undefined);
      try {
        await client.connect();
        return (await client.query('SELECT NOT pg_is_in_recovery() AS primary')).rows[0].primary === true;
      } catch {
        return false;
      } finally {
        await client.end().catch(() => undefined);
      }
    },
  };
  return self;
}

/** Settings of every private cluster: loopback only, its socket in its own directory, no fsync (a kill is no power cut). */
function baseSettings(root: string, port: number): string {
  return [
    `port = ${port}`,
    `listen_addresses = '127.0.0.1'`,
    `unix_socket_directories = '${root}'`,
    'fsync = off',
    'full_page_writes = off',
    'max_connections = 60',
    'shared_buffers = 32MB',
    '',
  ].join('\n');
}

/**
 * A new primary cluster, started. With `synchronousStandby`, a commit waits until the standby has the WAL
 * (`synchronous_standby_names = '*'`): what a failover without loss of acknowledged writes needs. With
 * `clockOffsetSeconds`, the server's clock (`now()`) runs that far from the machine's (libfaketime).
 */
export async function startPrimary(
  opts: { synchronousStandby?: boolean; clockOffsetSeconds?: number } = {},
): Promise<PgCluster> {
  const root = makeRoot();
  const port = await freePort();
  const primary = cluster('primary', root, port, undefined, opts.clockOffsetSeconds);
  await run(join(BIN, 'initdb'), ['-D', primary.dataDir, '-A', 'trust', '-U', 'postgres', '-E', 'UTF8', '--no-sync']);
  appendFileSync(
    join(primary.dataDir, 'postgresql.conf'),
    baseSettings(root, port) +
      ['wal_level = replica', 'max_wal_senders = 4', ''].join('\n') +
      (opts.synchronousStandby ? "synchronous_standby_names = '*'\n" : ''),
  );
  await primary.start();
  return primary;
}

/**
 * A streaming standby of `primary` (`pg_basebackup -R`), started and replicating. It asks for no synchronous
 * standby of its own, so once promoted it commits alone.
 */
export async function startStandby(primary: PgCluster): Promise<PgCluster> {
  const root = makeRoot();
  const port = await freePort();
  // Its copy and its stream come through the link (pg_basebackup -R names the link in primary_conninfo).
  const link = await startLink(primary.port);
  const standby = cluster('standby', root, port, link);
  await run(join(BIN, 'pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(link.port),
    '-U',
    'postgres',
    '-D',
    standby.dataDir,
    '-R',
    '-X',
    'stream',
    '--no-sync',
  ]);
  appendFileSync(
    join(standby.dataDir, 'postgresql.conf'),
    baseSettings(root, port) + "synchronous_standby_names = ''\n",
  );
  await standby.start();
  const admin = new Client({ connectionString: primary.url() });
  await admin.connect();
  try {
    await waitUntil('the standby to stream', async () => {
      const { rows } = await admin.query(
        `SELECT count(*)::int AS n FROM pg_stat_replication WHERE state = 'streaming'`,
      );
      return rows[0].n === 1;
    });
  } finally {
    await admin.end();
  }
  return standby;
}

/** Kills every private cluster still running (SIGKILL, as `kill`) and deletes their directories. */
export async function removeAllClusters(): Promise<void> {
  for (const c of [...started]) {
    if (c.postmasterPid() && alive(c.postmasterPid()!)) await c.kill();
    started.delete(c);
  }
  for (const link of links) {
    link.sockets.forEach((socket) => socket.destroy());
    await new Promise((resolve) => link.server.close(resolve));
  }
  links.clear();
  for (const root of roots) rmSync(root, { recursive: true, force: true, maxRetries: 5 });
  roots.clear();
}
