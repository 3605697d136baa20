/**
 * Where a process spent its CPU: a V8 `.cpuprofile` (`node --cpu-prof`, e.g. the API under `npm run bench -- redeem`
 * with BENCH_API_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof") summed by function, by file and by package, each
 * with its self time (samples in the function itself) and its inclusive time (samples with the function anywhere on
 * the stack, counted once per sample however deep the recursion), as shares of the busy time.
 *
 *   TS_NODE_TRANSPILE_ONLY=true node -r ts-node/register bench/profile-summary.ts /tmp/prof/CPU.*.cpuprofile [options]
 *
 * Options: --top N (30) rows per table; --all to sum the whole profile (default: only the load window, from the
 * first to the last sample whose stack holds `--window FN`, by default the redeem handler `redeem` of
 * redemption.controller); --requests N to print milliseconds per request as well.
 * Idle time ("(idle)") is never counted; "(program)" and "(garbage collector)" are, as V8 reports them. The first
 * table sums the samples by part of a redemption request (`PARTS`), with the write calls on their own (`WRITE_CALLS`).
 */
import { readFileSync } from 'fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

interface Row {
  self: number;
  total: number;
}

function argOf(args: string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

/** `node_modules/@nestjs/core/…` → `@nestjs/core`; our files relative to the project; node's own as `node:…`. */
export function packageOf(url: string): string {
  if (!url) return '(native)';
  if (url.startsWith('node:')) return 'node:internal';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) {
    const rest = url.slice(nm + 'node_modules/'.length).split('/');
    return rest[0].startsWith('@') ? `${rest[0]}/${rest[1]}` : rest[0];
  }
  const own = /\/(backend\/src\/.*)$/.exec(url);
  return own ? own[1].replace(/\.js$/, '.ts') : url.replace(/^file:\/\//, '');
}

function fileOf(url: string): string {
  if (!url) return '(native)';
  const nm = url.lastIndexOf('node_modules/');
  if (nm >= 0) return url.slice(nm + 'node_modules/'.length);
  return packageOf(url);
}

function functionOf(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  return frame.url ? `${name} ${fileOf(frame.url)}:${frame.lineNumber + 1}` : name;
}

/**
 * The write calls to a socket (the HTTP answer, a statement, a Redis command). V8's profiler samples by the clock
 * whenever JavaScript is on the stack, and a thread that loses its core inside such a call (the write wakes the
 * reader, which takes the core) is sampled there for the whole wait: under load most of their share is not CPU
 * (docs/benchmarks.md "The write calls are mostly waiting": 28% of the samples, the kernel's time 9% of the process's).
 */
const WRITE_CALLS = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String']);
const WRITES_PART = 'the write calls (waiting, mostly)';

/** The parts of a redemption request: a sample counts for the first one, from the sampled function outwards. */
const PARTS: Array<[string, RegExp]> = [
  [
    'validation (class-validator, class-transformer, the pipe)',
    /class-validator|class-transformer|\/validator\/|validation\.pipe|common\/validation|input-text/,
  ],
  ['the e-mail job (Bull, ioredis)', /\/bull\/|ioredis|bull-job-queue|lodash/],
  [
    'the statement (node-postgres, the pipeline)',
    /\/pg\/|pg-protocol|statement-pipeline|redemption\.repository|redeem\.statement/,
  ],
  ['the body (body-parser, raw-body)', /body-parser|raw-body|iconv-lite|type-is|content-type/],
  [
    'metrics, request log, headers',
    /prom-client|metrics|request-log|pino|security-headers|helmet|blocked-ip|compression/,
  ],
  ['events, real time, webhooks', /\/events\/|eventemitter2|realtime|webhook|socket\.io|engine\.io/],
  [
    "the product's rules (service, geo, token)",
    /redemption\.service|geoip|geo\.service|random-token|clock|pool-checks|code-guessing|redeem-rate-limit|attempt-store/,
  ],
  ['Nest, Express, router', /@nestjs|express|\/router\/|path-to-regexp|finalhandler/],
];

function partOf(stack: ProfileNode[]): string {
  const top = stack[0].callFrame.functionName;
  if (WRITE_CALLS.has(top)) return WRITES_PART;
  if (top.startsWith('(')) return top;
  for (const node of stack) for (const [part, files] of PARTS) if (files.test(node.callFrame.url)) return part;
  return 'Node.js (http, net, streams, timers)';
}

export function summarize(profile: CpuProfile, opts: { all: boolean; window: string }) {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const node of profile.nodes) {
    byId.set(node.id, node);
    for (const child of node.children ?? []) parent.set(child, node.id);
  }
  const stackOf = (id: number): ProfileNode[] => {
    const stack: ProfileNode[] = [];
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
    return stack;
  };
  // The load window: first to last sample under the handler (the whole profile with --all).
  let from = 0;
  let to = profile.samples.length - 1;
  if (!opts.all) {
    const inWindow = (id: number) =>
      stackOf(id).some(
        (n) => n.callFrame.functionName === opts.window && n.callFrame.url.includes('redemption.controller'),
      );
    from = profile.samples.findIndex(inWindow);
    if (from < 0) throw new Error(`no sample under ${opts.window}; use --all`);
    while (!inWindow(profile.samples[to])) to--;
  }
  const tables = { function: new Map<string, Row>(), file: new Map<string, Row>(), package: new Map<string, Row>() };
  const parts = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let wall = 0;
  const add = (table: Map<string, Row>, key: string, self: number, total: number) => {
    const row = table.get(key) ?? { self: 0, total: 0 };
    row.self += self;
    row.total += total;
    table.set(key, row);
  };
  for (let i = from; i <= to; i++) {
    // timeDeltas[i] is the time before sample i; charge sample i with the time up to the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    wall += us;
    const stack = stackOf(profile.samples[i]);
    const top = stack[0].callFrame;
    if (top.functionName === '(idle)') {
      idle += us;
      continue;
    }
    busy += us;
    add(tables.function, functionOf(top), us, 0);
    add(tables.file, fileOf(top.url), us, 0);
    add(tables.package, packageOf(top.url), us, 0);
    const part = partOf(stack);
    parts.set(part, (parts.get(part) ?? 0) + us);
    const seen = { function: new Set<string>(), file: new Set<string>(), package: new Set<string>() };
    for (const node of stack) {
      const keys = {
        function: functionOf(node.callFrame),
        file: fileOf(node.callFrame.url),
        package: packageOf(node.callFrame.url),
      };
      for (const kind of ['function', 'file', 'package'] as const) {
        if (seen[kind].has(keys[kind])) continue;
        seen[kind].add(keys[kind]);
        add(tables[kind], keys[kind], 0, us);
      }
    }
  }
  return { tables, parts, busy, idle, wall };
}

function main(): void {
  const args = process.argv.slice(2);
  const files = args.filter((a, i) => a.endsWith('.cpuprofile') && !['--top', '--window'].includes(args[i - 1]));
  if (!files.length) throw new Error('usage: profile-summary.ts FILE.cpuprofile [--top N] [--all] [--requests N]');
  const top = Number(argOf(args, '--top') ?? 30);
  const requests = Number(argOf(args, '--requests') ?? 0);
  for (const file of files) {
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const { tables, parts, busy, idle, wall } = summarize(profile, {
      all: args.includes('--all'),
      window: argOf(args, '--window') ?? 'redeem',
    });
    const ms = (us: number) => (us / 1000).toFixed(0);
    const pct = (us: number) => `${((100 * us) / busy).toFixed(1)}%`;
    console.log(`# ${file}`);
    console.log(
      `window ${ms(wall)} ms: busy ${ms(busy)} ms, idle ${ms(idle)} ms` +
        (requests ? `; ${(busy / 1000 / requests).toFixed(3)} ms busy per request over ${requests} requests` : ''),
    );
    const writes = parts.get(WRITES_PART) ?? 0;
    console.log(
      '\n## by part of the request (busy time; and without the write calls)\n| busy | without writes | part |',
    );
    console.log('|---:|---:|---|');
    for (const [part, us] of [...parts.entries()].sort((a, b) => b[1] - a[1])) {
      const without = part === WRITES_PART ? '' : `${((100 * us) / (busy - writes)).toFixed(1)}%`;
      console.log(`| ${pct(us)} | ${without} | ${part} |`);
    }
    for (const [kind, table] of Object.entries(tables)) {
      for (const order of ['self', 'total'] as const) {
        const rows = [...table.entries()].sort((a, b) => b[1][order] - a[1][order]).slice(0, top);
        console.log(`\n## by ${kind}, ${order === 'self' ? 'self' : 'inclusive'} time (top ${top})`);
        console.log('| self | inclusive | ' + kind + ' |\n|---:|---:|---|');
        for (const [key, row] of rows) console.log(`| ${pct(row.self)} | ${pct(row.total)} | ${key} |`);
      }
    }
  }
}

if (require.main === module) main();
