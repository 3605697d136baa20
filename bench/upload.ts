/**
 * Voucher upload: a 1,000,000-code CSV through `POST /api/products/:id/voucher-codes` (multipart over real
 * HTTP, bearer token) against `psql \copy` of the same codes straight into `voucher_codes` (same table, same
 * indexes). Targets: the API within 2x of psql, and the API process's peak RSS (VmHWM) under 300 MB.
 *
 *   npm run bench -- upload   (BENCH_UPLOAD_CODES to change the size)
 */
import { execFileSync } from 'child_process';
import { randomBytes } from 'crypto';
import { createWriteStream, openAsBlob, rmSync } from 'fs';
import { mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { adminToken, machine, peakRssMb, resetPeakRss, startApi, timeAsync, timeMs, withDatabase, writeResult } from './lib';

const CODES = Number(process.env.BENCH_UPLOAD_CODES ?? 1_000_000);
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** Random 16-character codes (as a generator would give them), in two files: the upload CSV and psql's. */
async function writeFiles(dir: string, productId: string): Promise<{ csv: string; psql: string }> {
  const csv = join(dir, 'codes.csv');
  const psql = join(dir, 'codes-psql.csv');
  const a = createWriteStream(csv);
  const b = createWriteStream(psql);
  a.write('code\n');
  const seen = new Set<string>();
  let chunkA = '';
  let chunkB = '';
  while (seen.size < CODES) {
    const bytes = randomBytes(16);
    let code = '';
    for (let i = 0; i < 16; i++) code += ALPHABET[bytes[i] & 31];
    if (seen.has(code)) continue;
    seen.add(code);
    chunkA += `${code}\n`;
    chunkB += `${code},${productId}\n`;
    if (chunkA.length > 1 << 20) {
      a.write(chunkA);
      b.write(chunkB);
      chunkA = chunkB = '';
    }
  }
  a.write(chunkA);
  b.write(chunkB);
  await Promise.all([new Promise((r) => a.end(r)), new Promise((r) => b.end(r))]);
  return { csv, psql };
}

async function reset(pg: Client): Promise<void> {
  await pg.query('TRUNCATE voucher_codes CASCADE');
  await pg.query('VACUUM ANALYZE voucher_codes');
  await pg.query('CHECKPOINT');
}

export async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ovr-upload-'));
  try {
    await withDatabase(async (url) => {
      await runMigrations(url);
      const pg = new Client({ connectionString: url });
      await pg.connect();
      const {
        rows: [product],
      } = await pg.query(
        `INSERT INTO products (name, email_subject, email_template) VALUES ('Bench Upload', 'S', '<p>x</p>') RETURNING id`,
      );
      const files = await writeFiles(dir, product.id);

      // 1. psql \copy of the same codes into the same table with the same indexes.
      await reset(pg);
      const psqlMs = timeMs(() =>
        execFileSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', url, '-c', `\\copy voucher_codes (code, product_id) from '${files.psql}' with (format csv)`]),
      );
      const {
        rows: [{ n: psqlRows }],
      } = await pg.query('SELECT count(*)::int AS n FROM voucher_codes');

      // 2. The API, same empty table.
      await reset(pg);
      const api = await startApi({ DATABASE_URL: url });
      let apiMs: number;
      let result: { inserted: number; duplicates: number; invalid: number };
      let rssStart: number;
      let rssBefore: number;
      let rssPeak: number;
      try {
        const token = await adminToken(url);
        rssStart = peakRssMb(api.child.pid!);
        resetPeakRss(api.child.pid!);
        rssBefore = peakRssMb(api.child.pid!);
        const run = await timeAsync(async () => {
          const form = new FormData();
          form.append('file', await openAsBlob(files.csv, { type: 'text/csv' }), 'codes.csv');
          const res = await fetch(`${api.url}/api/products/${product.id}/voucher-codes`, {
            method: 'POST',
            headers: { authorization: `Bearer ${token}` },
            body: form,
          });
          const body = (await res.json()) as { inserted: number; duplicates: number; invalid: number };
          if (res.status !== 201 && res.status !== 200) throw new Error(`upload failed: ${res.status} ${JSON.stringify(body)}`);
          return body;
        });
        apiMs = run.ms;
        result = run.value;
        rssPeak = peakRssMb(api.child.pid!);
      } finally {
        await api.stop();
      }
      const {
        rows: [{ n: apiRows }],
      } = await pg.query('SELECT count(*)::int AS n FROM voucher_codes');
      await pg.end();
      if (apiRows !== CODES || psqlRows !== CODES || result.inserted !== CODES) {
        throw new Error(`row counts differ: psql ${psqlRows}, api ${apiRows}, response ${JSON.stringify(result)}`);
      }

      const ratio = apiMs / psqlMs;
      const md = `## Voucher upload

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${CODES.toLocaleString('en-US')} random 16-character codes (a ${(CODES * 17 / 1e6).toFixed(0)} MB CSV), empty \`voucher_codes\` with all its indexes each time.

| what | time | rows |
|---|---|---|
| \`psql \\copy voucher_codes (code, product_id) from … with (format csv)\` | ${(psqlMs / 1000).toFixed(1)} s | ${psqlRows.toLocaleString('en-US')} |
| \`POST /api/products/:id/voucher-codes\` (multipart over HTTP, bearer token) | ${(apiMs / 1000).toFixed(1)} s | ${result.inserted.toLocaleString('en-US')} inserted, ${result.duplicates} duplicates, ${result.invalid} invalid |

API / psql = **${ratio.toFixed(2)}** (target ≤ 2). API process peak RSS (VmHWM) during the upload **${rssPeak.toFixed(0)} MB** (${rssBefore.toFixed(0)} MB resident before it; target < 300 MB). The peak is reset (\`/proc/PID/clear_refs\` 5) once the API is up: its start-up peak, ${rssStart.toFixed(0)} MB, comes from hashing the two bootstrap passwords (admin, operator) with scrypt at 128 MiB each on a fresh database, not from the upload.`;
      console.log(md);
      writeResult('upload', md);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
