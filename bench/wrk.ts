import { execFile as execFileCb } from 'child_process';
import { join } from 'path';
import { promisify } from 'util';

const execFile = promisify(execFileCb);

/** What one wrk run measured: redemptions answered 2xx per second, the other answers, latency, the last code sent. */
export interface WrkResult {
  rps: number;
  /** Redemptions answered 2xx. */
  ok: number;
  /** Answers other than 2xx, and requests that got no answer (connect, read, write errors and timeouts). */
  errors: number;
  p50: number;
  p99: number;
  /** The last code number sent. */
  last: number;
  /** wrk's own CPU per request, ms (user + system of the wrk process). */
  loadCpuMs: number;
}

/**
 * A closed loop of `clients` connections redeeming `<prefix><start>`, `<prefix><start + step>`, … for `seconds` against
 * `POST /api/redeem-voucher`, from wrk (Debian's package `wrk`, written in C) on one thread with bench/redeem.lua.
 * The load generator is as lean as pgbench is beside the statement, so that on a machine where the load, the API
 * and PostgreSQL share the cores, the API's figure is not the load generator's.
 */
export async function wrkRedeem(
  baseUrl: string,
  /** `manyAddresses`: each request from an address of its own in X-Forwarded-For (bench/redeem.lua). */
  opts: { clients: number; seconds: number; prefix: string; start: number; step: number; manyAddresses?: boolean },
): Promise<WrkResult> {
  const args = [
    '-t1',
    `-c${opts.clients}`,
    `-d${opts.seconds}s`,
    '--timeout',
    '10s',
    '-s',
    join(__dirname, 'redeem.lua'),
  ];
  // Under /usr/bin/time for wrk's CPU: Node reports the CPU of its own process only.
  const run = execFile('/usr/bin/time', [
    '-f',
    'wrk-cpu %U %S',
    'wrk',
    ...args,
    baseUrl,
    '--',
    opts.prefix,
    String(opts.start),
    String(opts.step),
    ...(opts.manyAddresses ? ['many'] : []),
  ]);
  const out = await run.catch((err: { stderr?: string; code?: string | number }) => {
    throw new Error(
      err.code === 'ENOENT' || err.code === 127
        ? 'bench: the redemption load needs wrk and time (apt-get install -y wrk time)'
        : `bench: wrk failed: ${err.stderr ?? err}`,
    );
  });
  const stdout = out.stdout + out.stderr;
  const line = /^wrk-result (.*)$/m.exec(stdout)?.[1];
  const cpu = /^wrk-cpu ([\d.]+) ([\d.]+)$/m.exec(stdout);
  if (!line || !cpu) throw new Error(`bench: no result from wrk:\n${stdout}`);
  const r = JSON.parse(line);
  const failed = r.status + r.connect + r.read + r.write + r.timeout;
  const ok = r.requests - r.status;
  return {
    rps: ok / (r.durationUs / 1e6),
    ok,
    errors: failed,
    p50: r.p50Us / 1000,
    p99: r.p99Us / 1000,
    last: r.last,
    loadCpuMs: ((Number(cpu[1]) + Number(cpu[2])) * 1000) / Math.max(r.requests, 1),
  };
}
