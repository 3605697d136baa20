/**
 * Admin list and search pages, statistics for every period, the product list and the pool forecast over
 * 1,000,000 redemptions (BENCH_REDEMPTIONS=10000000 for ten million), over HTTP with a bearer token, one request
 * at a time; then the console's first screen (me + products + stats + first redemptions page, in parallel as the
 * console asks them). Targets: every query p95 ≤ 50 ms; the first screen ≤ 100 ms.
 *
 *   npm run bench -- lists   (BENCH_REDEMPTIONS, BENCH_REPEAT, BENCH_RUNS (3) to change the run; BENCH_LISTS_DB=<url> seeds a
 *                             kept database once and reuses it, BENCH_SEED_ONLY=1 only seeds it)
 */
import { runMigrations } from '../backend/src/database/migrate';
import { adminToken, formatSpread, machine, RUNS, spread, startApi, withDatabase, writeResult } from './lib';
import { untilIdle } from './proc';
import { NO_MAIL_OUTBOX_ENV } from '../test/helpers/processes';
import { findSeeded, Seeded, seedRedemptions, SHAPES, UPLOAD_BATCH } from './seed';

const REDEMPTIONS = Number(process.env.BENCH_REDEMPTIONS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const TARGET_MS = 50;
const FIRST_SCREEN_TARGET_MS = 100;
/** Set when this run seeded its database: how long that took (COPY-free: INSERT … SELECT over generate_series). */
let seedSeconds: number | undefined;

async function seed(url: string): Promise<Seeded> {
  console.log('seeding…');
  const started = Date.now();
  const seeded = await seedRedemptions(url, { redemptions: REDEMPTIONS, exportedShare: 0.3, unredeemed: 200_000 });
  seedSeconds = (Date.now() - started) / 1000;
  console.log(`seeded in ${seedSeconds.toFixed(0)} s`);
  return seeded;
}

/**
 * BENCH_LISTS_DB: a database that is kept, seeded by the first run that finds it empty (BENCH_SEED_ONLY=1 stops
 * there, e.g. to seed ten million while the machine is busy and measure later), reused by the next runs.
 */
async function onDatabase(fn: (url: string, seeded: Seeded) => Promise<void>): Promise<void> {
  const given = process.env.BENCH_LISTS_DB;
  if (given) {
    await runMigrations(given);
    const seeded = (await findSeeded(given)) ?? (await seed(given));
    if (process.env.BENCH_SEED_ONLY) return;
    return fn(given, seeded);
  }
  return withDatabase(async (url) => {
    await runMigrations(url);
    await fn(url, await seed(url));
  });
}

/** The queries measured, by name and request; `someCode` is a redeemed Windows code of the seed. */
function listQueries(seeded: Seeded): Array<[string, string]> {
  const part = seeded.someCode.slice(0, 7); // "RC33333": a prefix of a few codes
  return [
    ['redemptions, first page', '/api/redemptions?page=1&limit=50'],
    ['redemptions, deep page (offset 200,000)', '/api/redemptions?page=4001&limit=50'],
    ['redemptions, emailStatus=pending', '/api/redemptions?emailStatus=pending'],
    ['redemptions, emailStatus=sent', '/api/redemptions?emailStatus=sent'],
    ['redemptions, emailStatus=failed', '/api/redemptions?emailStatus=failed'],
    ['redemptions, showExported=true', '/api/redemptions?showExported=true'],
    ['redemptions, search exact code', `/api/redemptions?search=${seeded.someCode}`],
    ['redemptions, search part of a code', `/api/redemptions?search=${part}`],
    ['redemptions, search part of an e-mail', '/api/redemptions?search=user123456'],
    ['redemptions, search customer name', `/api/redemptions?search=${encodeURIComponent('Greta Kochberg')}`],
    [
      'redemptions, search a name shared by 0.2% of the customers',
      `/api/redemptions?search=${encodeURIComponent(`${SHAPES.sharedName.first} ${SHAPES.sharedName.last}`)}`,
    ],
    [
      'redemptions, broad search (2.5% of rows: one e-mail subdomain)',
      `/api/redemptions?search=mail7.${SHAPES.sharedDomain}`,
    ],
    ['redemptions, search the domain every customer shares', `/api/redemptions?search=${SHAPES.sharedDomain}`],
    ['redemptions, very broad search (every row: "user")', '/api/redemptions?search=user'],
    [
      'redemptions, broad search + emailStatus=sent',
      `/api/redemptions?search=mail7.${SHAPES.sharedDomain}&emailStatus=sent`,
    ],
    ['voucher-codes-detailed, all', `/api/products/${seeded.windows}/voucher-codes-detailed?limit=50&offset=0`],
    [
      'voucher-codes-detailed, redeemed',
      `/api/products/${seeded.windows}/voucher-codes-detailed?redeemedOnly=true&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, unredeemed',
      `/api/products/${seeded.windows}/voucher-codes-detailed?redeemedOnly=false&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, deep offset 100,000',
      `/api/products/${seeded.windows}/voucher-codes-detailed?limit=50&offset=100000`,
    ],
    [
      'voucher-codes-detailed, search',
      `/api/products/${seeded.windows}/voucher-codes-detailed?search=${part}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, search exact code',
      `/api/products/${seeded.windows}/voucher-codes-detailed?search=${seeded.someCode}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, search the end of a code',
      `/api/products/${seeded.windows}/voucher-codes-detailed?search=${seeded.someCode.slice(-8)}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, redeemed, search',
      `/api/products/${seeded.windows}/voucher-codes-detailed?redeemedOnly=true&search=${part}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, search the prefix 10% of the codes share',
      `/api/products/${seeded.windows}/voucher-codes-detailed?search=${SHAPES.sharedCodePrefix.prefix}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, Mac, a start only Windows codes have',
      `/api/products/${seeded.mac}/voucher-codes-detailed?search=${SHAPES.sharedCodePrefix.prefix}&limit=50&offset=0`,
    ],
    [
      'voucher-codes-detailed, broad search ("RC1")',
      `/api/products/${seeded.windows}/voucher-codes-detailed?search=RC1&limit=50&offset=0`,
    ],
    ['license-keys, first page', '/api/license-keys?page=1&limit=50'],
    ['license-keys, product + search', `/api/license-keys?productId=${seeded.windows}&search=KEY-4242&page=1&limit=50`],
    ['license-keys, status=fully-used', '/api/license-keys?status=fully-used&page=1&limit=50'],
    ['stats/alltime', '/api/stats/alltime'],
    ['products', '/api/products'],
    ...['today', 'yesterday', 'last7days', 'last30days', 'thismonth', 'lastmonth'].map((period): [string, string] => [
      `stats/${period}`,
      `/api/stats/${period}`,
    ]),
    ['license pool forecast', '/api/license-pool/forecast'],
    ['upload batches of a product (live counts)', `/api/products/${seeded.windows}/batches`],
    ['review queue, held (oldest first)', '/api/reviews?status=held&limit=50'],
    // A seed made before the held redemptions has none: the query is left out.
    ...(seeded.heldId
      ? [['review evidence of a held case', `/api/reviews/${seeded.heldId}/evidence`] as [string, string]]
      : []),
  ];
}

interface Timed {
  p50: number;
  p95: number;
}

/** One run: a fresh API on the seeded database, every query REPEAT times in turn, then the first screen. */
async function measureRun(
  url: string,
  queries: Array<[string, string]>,
  run: number,
): Promise<{ queries: Map<string, Timed & { info: string }>; firstScreen: Timed }> {
  // The admin pages are measured, not the e-mail backlog: the seed's pending e-mails (6%, up to 400 days old) are
  // never old enough for the sweep, nor read by the relay in its first day, so the jobs worker does not start sending
  // them (to a port where nothing listens) while the first queries are timed.
  const api = await startApi({ DATABASE_URL: url, ...NO_MAIL_OUTBOX_ENV });
  try {
    await untilIdle(api.child.pid!);
    const token = await adminToken(url);
    const get = async (path: string) => {
      const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const timed = new Map<string, Timed & { info: string }>();
    for (const [name, path] of queries) {
      // A route this version does not have (the forecast, before it is merged) is left out, not failed.
      if ((await get(path)).status === 404) {
        console.log(`${path}: 404, skipped`);
        continue;
      }
      let info = '';
      const times: number[] = [];
      for (let i = 0; i < REPEAT + 3; i++) {
        const started = process.hrtime.bigint();
        const { status, body } = await get(path);
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        if (status !== 200) throw new Error(`${path}: ${status} ${JSON.stringify(body)}`);
        if (i >= 3) times.push(ms);
        if (i === 0) info = answerOf(body);
      }
      const { p50, p95 } = percentiles(times);
      timed.set(name, { p50, p95, info });
      console.log(`run ${run + 1}: ${name}: p50 ${p50.toFixed(1)} ms, p95 ${p95.toFixed(1)} ms`);
    }
    return { queries: timed, firstScreen: await measureFirstScreen(get) };
  } finally {
    await api.stop();
  }
}

/** "50 rows, total 1000": what a list answered (its first request), as the table shows it. */
function answerOf(body: Record<string, any>): string {
  const total = body.pagination?.totalCount ?? body.totalCount ?? body.pagination?.total ?? body.total;
  const items = body.redemptions ?? body.codes ?? body.licenseKeys ?? body.keys ?? body.products ?? body.items;
  const related = ['sameEmail', 'sameAddress', 'samePhone'].filter((k) => Array.isArray(body[k]));
  if (related.length) return related.map((k) => `${k} ${body[k].length}`).join(', ');
  return [Array.isArray(items) ? `${items.length} rows` : '', total !== undefined ? `total ${total}` : '']
    .filter(Boolean)
    .join(', ');
}

function percentiles(times: number[]): Timed {
  const sorted = [...times].sort((a, b) => a - b);
  return {
    p50: sorted[Math.floor(sorted.length * 0.5)],
    p95: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.95))],
  };
}

export async function main(): Promise<void> {
  await onDatabase(async (url, seeded) => {
    const queries = listQueries(seeded);
    const runs = [];
    for (let run = 0; run < RUNS; run++) runs.push(await measureRun(url, queries, run));
    const rows: string[] = [];
    let misses = 0;
    for (const [name, path] of queries) {
      const timed = runs.map((r) => r.queries.get(name)).filter((t) => t !== undefined);
      if (!timed.length) continue;
      const p95 = spread(timed.map((t) => t.p95));
      const met = p95.median < TARGET_MS;
      if (!met) misses++;
      const request = path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id');
      rows.push(
        `| ${name} | \`${request}\` | ${formatSpread(spread(timed.map((t) => t.p50)), 1)} | ${formatSpread(p95, 1)} | ${timed[0].info} | ${met ? 'yes' : '**no**'} |`,
      );
    }
    const measuredCount = rows.length;
    const metByRun = runs.map((r) => [...r.queries.values()].filter((t) => t.p95 < TARGET_MS).length);
    const firstScreen = spread(runs.map((r) => r.firstScreen.p95));
    const scale = REDEMPTIONS === 1_000_000 ? '' : ` at ${REDEMPTIONS.toLocaleString('en-US')} redemptions`;
    const md = `## Admin lists and searches${scale}

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${REDEMPTIONS.toLocaleString('en-US')} redemptions (half with an assigned licence key, 30% exported, one customer each; the codes stored in uploads of ${UPLOAD_BATCH.toLocaleString('en-US')} a product) plus 200,000 unredeemed codes; ${RUNS} run${RUNS === 1 ? '' : 's'}, each a freshly started API measuring every query in turn: ${REPEAT} sequential requests per query after 3 warm-up requests, over HTTP with a bearer token. Each figure is the median of the runs with their range. Target: p95 under ${TARGET_MS} ms.

| query | request | p50 ms | p95 ms | answer | met |
|---|---|---|---|---|---|
${rows.join('\n')}

${misses ? `**${misses} quer${misses === 1 ? 'y misses' : 'ies miss'} the target.**` : 'Every query meets the target.'} Run by run: ${metByRun.map((n) => `${n} of ${measuredCount}`).join(', ')} within it.

Console first screen (\`GET /api/admin/me\`, \`/api/products\`, \`/api/stats/today\`, \`/api/redemptions?page=1&limit=50\` at once, until the last answers): p50 ${formatSpread(spread(runs.map((r) => r.firstScreen.p50)), 1)} ms, p95 ${formatSpread(firstScreen, 1)} ms (target ≤ ${FIRST_SCREEN_TARGET_MS} ms: ${firstScreen.median <= FIRST_SCREEN_TARGET_MS ? 'met' : '**not met**'}).${seedSeconds === undefined ? '' : ` Seeding took ${seedSeconds.toFixed(0)} s.`}`;
    console.log(md);
    // One block per scale: the ten-million run does not replace the one-million figures.
    writeResult(REDEMPTIONS === 1_000_000 ? 'lists' : `lists-${REDEMPTIONS}`, md);
  });
}

/** The console's first screen: its four requests at once, REPEAT times after 3 warm-ups; p50/p95 of the slowest. */
async function measureFirstScreen(get: (path: string) => Promise<{ status: number; body: unknown }>): Promise<Timed> {
  const paths = ['/api/admin/me', '/api/products', '/api/stats/today', '/api/redemptions?page=1&limit=50'];
  const times: number[] = [];
  for (let i = 0; i < REPEAT + 3; i++) {
    const started = process.hrtime.bigint();
    const answers = await Promise.all(paths.map(get));
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    const failed = answers.find((a) => a.status !== 200);
    if (failed) throw new Error(`first screen: ${failed.status} ${JSON.stringify(failed.body)}`);
    if (i >= 3) times.push(ms);
  }
  return percentiles(times);
}
