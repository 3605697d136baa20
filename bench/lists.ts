/**
 * Admin list and search pages over 1,000,000 redemptions, over HTTP with a bearer token, one request at a
 * time. Target: every query under 50 ms (p95).
 *
 *   npm run bench -- lists   (BENCH_REDEMPTIONS, BENCH_REPEAT to change the run)
 */
import { runMigrations } from '../backend/src/database/migrate';
import { adminToken, machine, startApi, withDatabase, writeResult } from './lib';
import { findSeeded, Seeded, seedRedemptions } from './seed';

const REDEMPTIONS = Number(process.env.BENCH_REDEMPTIONS ?? 1_000_000);
const REPEAT = Number(process.env.BENCH_REPEAT ?? 30);
const TARGET_MS = 50;

/** BENCH_LISTS_DB: an already seeded database (kept), to iterate on queries without seeding again. */
async function onDatabase(fn: (url: string, seeded: Seeded) => Promise<void>): Promise<void> {
  const given = process.env.BENCH_LISTS_DB;
  if (given) {
    await runMigrations(given);
    return fn(given, await findSeeded(given));
  }
  return withDatabase(async (url) => {
    await runMigrations(url);
    console.log('seeding…');
    await fn(url, await seedRedemptions(url, { redemptions: REDEMPTIONS, exportedShare: 0.3, unredeemed: 200_000 }));
  });
}

export async function main(): Promise<void> {
  await onDatabase(async (url, seeded) => {
    const api = await startApi({ DATABASE_URL: url });
    const rows: string[] = [];
    let misses = 0;
    try {
      const token = await adminToken(url);
      const part = seeded.someCode.slice(0, 7); // "RC33333": a prefix of a few codes
      const queries: Array<[string, string]> = [
        ['redemptions, first page', '/api/redemptions?page=1&limit=50'],
        ['redemptions, deep page (offset 200,000)', '/api/redemptions?page=4001&limit=50'],
        ['redemptions, emailStatus=pending', '/api/redemptions?emailStatus=pending'],
        ['redemptions, emailStatus=sent', '/api/redemptions?emailStatus=sent'],
        ['redemptions, emailStatus=failed', '/api/redemptions?emailStatus=failed'],
        ['redemptions, showExported=true', '/api/redemptions?showExported=true'],
        ['redemptions, search exact code', `/api/redemptions?search=${seeded.someCode}`],
        ['redemptions, search part of a code', `/api/redemptions?search=${part}`],
        ['redemptions, search part of an e-mail', '/api/redemptions?search=user123456'],
        ['redemptions, search customer name', `/api/redemptions?search=${encodeURIComponent('Greta Koch')}`],
        ['redemptions, broad search (~17k rows: one e-mail domain)', '/api/redemptions?search=mail7.test'],
        ['redemptions, very broad search (every row: "user")', '/api/redemptions?search=user'],
        ['redemptions, broad search + emailStatus=sent', '/api/redemptions?search=mail7.test&emailStatus=sent'],
        ['voucher-codes-detailed, all', `/api/products/${seeded.windows}/voucher-codes-detailed?limit=50&offset=0`],
        ['voucher-codes-detailed, redeemed', `/api/products/${seeded.windows}/voucher-codes-detailed?redeemedOnly=true&limit=50&offset=0`],
        ['voucher-codes-detailed, unredeemed', `/api/products/${seeded.windows}/voucher-codes-detailed?redeemedOnly=false&limit=50&offset=0`],
        ['voucher-codes-detailed, deep offset 100,000', `/api/products/${seeded.windows}/voucher-codes-detailed?limit=50&offset=100000`],
        ['voucher-codes-detailed, search', `/api/products/${seeded.windows}/voucher-codes-detailed?search=${part}&limit=50&offset=0`],
        ['voucher-codes-detailed, broad search ("RC1")', `/api/products/${seeded.windows}/voucher-codes-detailed?search=RC1&limit=50&offset=0`],
        ['license-keys, first page', '/api/license-keys?page=1&limit=50'],
        ['license-keys, product + search', `/api/license-keys?productId=${seeded.windows}&search=KEY-4242&page=1&limit=50`],
        ['license-keys, status=fully-used', '/api/license-keys?status=fully-used&page=1&limit=50'],
        ['stats/alltime', '/api/stats/alltime'],
        ['products', '/api/products'],
      ];
      for (const [name, path] of queries) {
        const times: number[] = [];
        let info = '';
        for (let i = 0; i < REPEAT + 3; i++) {
          const started = process.hrtime.bigint();
          const res = await fetch(api.url + path, { headers: { authorization: `Bearer ${token}` } });
          const body = (await res.json()) as Record<string, any>;
          const ms = Number(process.hrtime.bigint() - started) / 1e6;
          if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
          if (i >= 3) times.push(ms);
          if (i === 0) {
            const total = body.pagination?.totalCount ?? body.totalCount ?? body.pagination?.total;
            const items = body.redemptions ?? body.codes ?? body.licenseKeys ?? body.keys ?? body.products;
            info = [Array.isArray(items) ? `${items.length} rows` : '', total !== undefined ? `total ${total}` : '']
              .filter(Boolean)
              .join(', ');
          }
        }
        times.sort((a, b) => a - b);
        const p50 = times[Math.floor(times.length * 0.5)];
        const p95 = times[Math.min(times.length - 1, Math.floor(times.length * 0.95))];
        const met = p95 < TARGET_MS;
        if (!met) misses++;
        const line = `| ${name} | \`${path.replace(/[0-9a-f]{8}-[0-9a-f-]{27}/g, ':id')}\` | ${p50.toFixed(1)} | ${p95.toFixed(1)} | ${info} | ${met ? 'yes' : '**no**'} |`;
        console.log(line);
        rows.push(line);
      }
    } finally {
      await api.stop();
    }
    const md = `## Admin lists and searches

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${REDEMPTIONS.toLocaleString('en-US')} redemptions (half with an assigned licence key, 30% exported, one customer each) plus 200,000 unredeemed codes; ${REPEAT} sequential requests per query after 3 warm-up requests, over HTTP with a bearer token. Target: p95 under ${TARGET_MS} ms.

| query | request | p50 ms | p95 ms | answer | met |
|---|---|---|---|---|---|
${rows.join('\n')}

${misses ? `**${misses} quer${misses === 1 ? 'y misses' : 'ies miss'} the target.**` : 'Every query meets the target.'}`;
    console.log(md);
    writeResult('lists', md);
  });
}
