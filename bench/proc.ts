/**
 * What the kernel says of a benchmark's processes (Linux `/proc`, proc(5)): CPU time, the time a thread waited for
 * a core, peak memory, and when a started service has gone quiet.
 */
import { readFileSync, writeFileSync } from 'fs';
import { performance } from 'perf_hooks';
import { childProcesses } from '../test/helpers/processes';
import { sql } from './lib';

/** Peak resident memory of a process so far (Linux), in MB. */
export function peakRssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmHWM:\s+(\d+) kB/.exec(status);
  return match ? Number(match[1]) / 1024 : NaN;
}

/**
 * Resets a process's peak resident memory to its current RSS (Linux ≥ 4.0, `clear_refs` 5), so a later
 * `peakRssMb` measures one operation rather than start-up (which hashes the bootstrap passwords with
 * scrypt at 128 MiB each).
 */
export function resetPeakRss(pid: number): void {
  writeFileSync(`/proc/${pid}/clear_refs`, '5');
}

/** CPU time (user + system) a process has used so far, in milliseconds (Linux). */
export function cpuMs(pid: number): number {
  return statCpuMs(pid, false);
}

/**
 * A process's CPU time in ms from /proc/<pid>/stat: utime and stime (fields 14 and 15 of proc(5); here counted from
 * the state, field 3), and with `reaped` also cutime and cstime, that of the children it has waited for.
 */
function statCpuMs(pid: number, reaped: boolean): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const ticks = (reaped ? [11, 12, 13, 14] : [11, 12]).reduce((sum, i) => sum + Number(fields[i]), 0);
  return (ticks * 1000) / 100;
}

/**
 * CPU time (user + system, ms) the PostgreSQL server at `url` has used so far: its postmaster's own and that of the
 * children it has reaped (the backends of clients that disconnected: pgbench's when it ends), plus that of its live
 * children (background writer, WAL writer, checkpointer, autovacuum, open backends). Two readings around a pgbench
 * run give the server's CPU per transaction, without the load generator's CPU that transactions per second share
 * the cores with (on a CPU-bound server it moves about as much between runs: the noise is the server's own work,
 * checkpoints and autovacuum among it). The postmaster is found through the server's own `postmaster.pid`.
 */
export async function postgresCpuMs(url: string): Promise<number> {
  const [{ dir }] = await sql(url, [`SELECT current_setting('data_directory') AS dir`]);
  const postmaster = Number(readFileSync(`${dir}/postmaster.pid`, 'utf8').split('\n')[0]);
  return statCpuMs(postmaster, true) + childProcesses(postmaster).reduce((sum, c) => sum + cpuMsIfAlive(c.pid), 0);
}

/**
 * Waits until a started service is done starting: its process and the ones it forked (the jobs worker, which boots
 * the whole application and runs its start-up jobs) use under 5% of a core over half a second. A query timed during
 * that boot measures the boot, not the query. Gives up after `maxMs` and says so.
 */
export async function untilIdle(pid: number, maxMs = 60_000): Promise<void> {
  const used = () => [pid, ...childProcesses(pid).map((c) => c.pid)].reduce((sum, p) => sum + cpuMsIfAlive(p), 0);
  const deadline = Date.now() + maxMs;
  let before = used();
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const now = used();
    if (now - before < 25) return;
    before = now;
  }
  console.warn(`process ${pid} was still busy ${maxMs} ms after it started; measuring anyway`);
}

/** `cpuMs`, or 0 for a process that has ended meanwhile. */
function cpuMsIfAlive(pid: number): number {
  try {
    return cpuMs(pid);
  } catch {
    return 0;
  }
}

/** A thread's time on a core and time waiting in a run queue for one: in ms, or as shares of a stretch of time. */
export interface ThreadTimes {
  running: number;
  waiting: number;
}

/**
 * A process's main thread's scheduler times so far, in ms (`/proc/<pid>/schedstat`: time on a core and time runnable
 * but waiting for one, in ns). Node.js runs all JavaScript on the main thread: every request and every answer from
 * PostgreSQL or Redis passes through it, so the time it waits for a core is time they all wait.
 */
function threadMs(pid: number): ThreadTimes {
  const [running, waiting] = readFileSync(`/proc/${pid}/schedstat`, 'utf8').trim().split(' ').map(Number);
  return { running: running / 1e6, waiting: waiting / 1e6 };
}

/**
 * Watches the main threads of `pids` from now on: the function it answers gives the shares of the time since then
 * that they were on a core and waited for one (the mean over the threads).
 */
export function watchThreads(pids: number[]): () => ThreadTimes {
  const read = () => pids.map(threadMs);
  const [before, started] = [read(), performance.now()];
  return () => {
    const [now, elapsed] = [read(), (performance.now() - started) * pids.length];
    const share = (key: keyof ThreadTimes) => now.reduce((sum, t, i) => sum + t[key] - before[i][key], 0) / elapsed;
    return { running: share('running'), waiting: share('waiting') };
  };
}
