/**
 * Codes arriving from a marketplace (issue 52, docs/product.md §24.5): 1,000,000 random codes as 1,000 signed
 * `voucher.created` events of 1,000 codes each, sent to `POST /api/marketplaces/:id/events` over real HTTP, against
 * `psql \copy` of the same codes into `voucher_codes` (same table, same indexes). The connection is made through the
 * admin API; it checks nothing, reports nothing and pulls nothing. The events go one after another, and then
 * BENCH_INBOUND_CONCURRENCY (4) at a time, each round into an emptied table.
 * Target: the events within 3x of the \copy.
 *
 *   npm run bench -- marketplace-inbound   (BENCH_UPLOAD_CODES (1,000,000), BENCH_RUNS (3))
 *
 * The API runs with NODE_ENV=development: a connection's base URL on loopback needs WEBHOOK_ALLOW_INSECURE_TARGETS,
 * which production refuses; nothing calls it.
 */
import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { marketplaceSignature } from '../backend/src/modules/marketplace/marketplace-signature';
import {
  adminToken,
  formatSpread,
  insertPlainProduct,
  machine,
  psqlCopyCodes,
  RUNS,
  spread,
  startApi,
  withMigratedDatabase,
  writeResult,
} from './lib';

const CODES = Number(process.env.BENCH_UPLOAD_CODES ?? 1_000_000);
const PER_EVENT = 1_000;
const CONCURRENCY = Number(process.env.BENCH_INBOUND_CONCURRENCY ?? 4);
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
const REF = 'BENCH-INBOUND';

function randomCodes(n: number): string[] {
  const seen = new Set<string>();
  while (seen.size < n) {
    const bytes = randomBytes(16);
    let code = '';
    for (let i = 0; i < 16; i++) code += ALPHABET[bytes[i] & 31];
    seen.add(code);
  }
  return [...seen];
}

async function reset(pg: Client): Promise<void> {
  await pg.query('TRUNCATE voucher_codes, marketplace_events CASCADE');
  await pg.query('VACUUM ANALYZE voucher_codes');
  await pg.query('CHECKPOINT');
}

async function countCodes(pg: Client): Promise<number> {
  const {
    rows: [{ n }],
  } = await pg.query(`SELECT count(*)::int AS n FROM voucher_codes`);
  return n;
}

/** The events, `concurrency` in flight; each must answer 2xx. Answers the milliseconds taken. */
async function sendEvents(url: string, id: string, secret: string, codes: string[], run: string, concurrency: number) {
  let next = 0;
  const send = async () => {
    for (;;) {
      const i = next++;
      if (i * PER_EVENT >= codes.length) return;
      const body = JSON.stringify({
        id: `evt_${run}_${i}`,
        type: 'voucher.created',
        externalRef: REF,
        codes: codes.slice(i * PER_EVENT, (i + 1) * PER_EVENT),
      });
      const at = Math.floor(Date.now() / 1000);
      const res = await fetch(`${url}/api/marketplaces/${id}/events`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-timestamp': String(at),
          'x-signature': marketplaceSignature(secret, at, body),
        },
        body,
      });
      if (!res.ok) throw new Error(`bench: event ${i} answered ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
  };
  const started = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, send));
  return Number(process.hrtime.bigint() - started) / 1e6;
}

interface InboundRun {
  psqlMs: number;
  sequentialMs: number;
  concurrentMs: number;
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ovr-inbound-'));
  try {
    await withMigratedDatabase(async (url, pg) => {
      const productId = await insertPlainProduct(pg, 'Bench Inbound');
      const codes = randomCodes(CODES);
      const psqlFile = join(dir, 'codes-psql.csv');
      writeFileSync(psqlFile, codes.map((c) => `${c},${productId}\n`).join(''));
      const api = await startApi({
        DATABASE_URL: url,
        WORKERS_IN_API: 'false',
        NODE_ENV: 'development',
        WEBHOOK_ALLOW_INSECURE_TARGETS: '127.0.0.1',
      });
      const runs: InboundRun[] = [];
      try {
        const token = await adminToken(url);
        const res = await fetch(`${api.url}/api/marketplaces`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'Bench inbound',
            baseUrl: 'http://127.0.0.1:9/mp',
            products: [{ productId, externalRef: REF }],
          }),
        });
        if (res.status !== 201) throw new Error(`bench: POST /api/marketplaces answered ${res.status}`);
        const { id, secret } = (await res.json()) as { id: string; secret: string };
        for (let r = 0; r < RUNS; r++) {
          await reset(pg);
          const psqlMs = psqlCopyCodes(url, 'voucher_codes', psqlFile);
          const measured: number[] = [];
          for (const concurrency of [1, CONCURRENCY]) {
            if ((await countCodes(pg)) !== CODES) throw new Error('bench: the \\copy did not load every code');
            await reset(pg);
            measured.push(await sendEvents(api.url, id, secret, codes, `${r}_${concurrency}`, concurrency));
            const n = await countCodes(pg);
            if (n !== CODES) throw new Error(`bench: the events added ${n} codes, not ${CODES}`);
          }
          runs.push({ psqlMs, sequentialMs: measured[0], concurrentMs: measured[1] });
          console.log(JSON.stringify(runs[r]));
        }
      } finally {
        await api.stop();
      }
      write(runs);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function write(runs: InboundRun[]): void {
  const of = (f: (r: InboundRun) => number) => spread(runs.map(f));
  const seconds = (f: (r: InboundRun) => number) =>
    `${formatSpread(
      of((r) => f(r) / 1000),
      1,
    )} s`;
  const ratio = (f: (r: InboundRun) => number) => of((r) => f(r) / r.psqlMs);
  const sequential = ratio((r) => r.sequentialMs);
  const concurrent = ratio((r) => r.concurrentMs);
  const met = (s: ReturnType<typeof spread>) => (s.median <= 3 ? 'met' : '**not met**');
  const md = `## Codes from a marketplace

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${CODES.toLocaleString('en-US')} random 16-character codes as ${(CODES / PER_EVENT).toLocaleString('en-US')} signed \`voucher.created\` events of ${PER_EVENT.toLocaleString('en-US')} codes each to \`POST /api/marketplaces/:id/events\` over HTTP (one API process, workers off), against \`psql \\copy voucher_codes (code, product_id) from … with (format csv)\` of the same codes; an emptied table each time; ${RUNS} run${RUNS === 1 ? '' : 's'}, each figure the median of the runs with their range. The \\copy: ${seconds((r) => r.psqlMs)}. The events one after another: ${seconds((r) => r.sequentialMs)}, **${formatSpread(sequential, 2)}x** the \\copy (target ≤ 3: ${met(sequential)}); ${CONCURRENCY} at a time: ${seconds((r) => r.concurrentMs)}, ${formatSpread(concurrent, 2)}x.`;
  console.log(md);
  writeResult('marketplace-inbound', md);
}
