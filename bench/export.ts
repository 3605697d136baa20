/**
 * Exports of 1,000,000 rows over HTTP (bearer token, body read to the end) against PostgreSQL's own
 * `COPY (same select) TO STDOUT WITH (FORMAT csv, HEADER)` through psql into /dev/null. Target: the API
 * within 3x of COPY, with flat memory (the API process's peak RSS during the export is reported).
 *
 *   npm run bench -- export   (BENCH_EXPORT_ROWS to change the size, BENCH_RUNS (3) the runs)
 */
import { spawnSync } from 'child_process';
import { markAndSelect } from '../backend/src/modules/export/export.repository';
import { CODE_STATUS_SQL } from '../backend/src/modules/voucher/code-status.sql';
import {
  adminToken,
  formatSpread,
  machine,
  RUNS,
  spread,
  startApi,
  timeMs,
  withMigratedDatabase,
  writeResult,
} from './lib';
import { peakRssMb, resetPeakRss } from './proc';
import { recountCounters } from './recount';
import { seedRedemptions } from './seed';

const ROWS = Number(process.env.BENCH_EXPORT_ROWS ?? 1_000_000);
const TARGET = 3;

function psqlCopy(url: string, sql: string, inTransactionRolledBack: boolean): { ms: number; bytes: number } {
  const copy = `COPY (${sql.replace(/\s+/g, ' ')}) TO STDOUT WITH (FORMAT csv, HEADER)`;
  const script = inTransactionRolledBack ? `BEGIN;\n${copy};\nROLLBACK;\n` : `${copy};\n`;
  let bytes = 0;
  const ms = timeMs(() => {
    const out = spawnSync('sh', ['-c', `psql -X -q -v ON_ERROR_STOP=1 '${url}' | wc -c`], {
      input: script,
      encoding: 'utf8',
    });
    if (out.status !== 0) throw new Error(out.stderr);
    bytes = Number(out.stdout.trim());
  });
  return { ms, bytes };
}

async function httpExport(
  baseUrl: string,
  path: string,
  token: string,
  pid: number,
): Promise<{ ms: number; bytes: number; lines: number; rssMb: number }> {
  resetPeakRss(pid);
  const started = process.hrtime.bigint();
  const res = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${token}` } });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  let bytes = 0;
  let lines = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines++;
  }
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  // The audit row and COMMIT follow the last byte; give them a moment before reading the peak.
  await new Promise((r) => setTimeout(r, 500));
  return { ms, bytes, lines, rssMb: peakRssMb(pid) };
}

interface ExportRun {
  copyUnredeemed: { ms: number; bytes: number };
  copyRedeemed: { ms: number; bytes: number };
  unredeemed: Awaited<ReturnType<typeof httpExport>>;
  redeemed: Awaited<ReturnType<typeof httpExport>>;
}

export async function main(): Promise<void> {
  await withMigratedDatabase(async (url, pg) => {
    console.log('seeding…');
    const seeded = await seedRedemptions(url, { redemptions: ROWS, exportedShare: 0, unredeemed: ROWS });
    // The export alone: no e-mail left pending, else the API's jobs worker retries the seeded pending ones (6% of the
    // rows) against the bench's closed SMTP port, and relays each outcome to the API, while the export runs.
    await pg.query(`UPDATE redemptions SET email_status = 'sent' WHERE email_status = 'pending'`);

    // Same statements as the API runs (the redeemed export marks its rows: psql's run is rolled back).
    const redeemedSql = markAndSelect('r.exported = false');
    const unredeemedSql = `SELECT v.code, p.name AS product, v.created_at
                FROM voucher_codes v JOIN products p ON p.id = v.product_id
               WHERE ${CODE_STATUS_SQL.available} AND ('${seeded.windows}'::uuid IS NULL OR v.product_id = '${seeded.windows}')
               ORDER BY p.name, v.seq DESC`;
    // Warm the cache once.
    psqlCopy(url, unredeemedSql, false);

    const api = await startApi({ DATABASE_URL: url });
    const runs: ExportRun[] = [];
    let rssIdle: number;
    try {
      const token = await adminToken(url);
      resetPeakRss(api.child.pid!);
      rssIdle = peakRssMb(api.child.pid!);
      for (let i = 0; i < RUNS; i++) {
        // Every run exports the same rows: the marks of the run before are taken back, counters included, and their
        // dead rows vacuumed before COPY reads the table (this server runs without autovacuum: "Method").
        if (i > 0) {
          await pg.query(`UPDATE redemptions SET exported = false, exported_at = NULL WHERE exported`);
          await recountCounters(pg, [seeded.windows, seeded.mac]);
          await pg.query('VACUUM ANALYZE redemptions');
        }
        const copyUnredeemed = psqlCopy(url, unredeemedSql, false);
        const copyRedeemed = psqlCopy(url, redeemedSql, true);
        await pg.query('VACUUM ANALYZE redemptions');
        const unredeemed = await httpExport(
          api.url,
          `/api/export/unredeemed-vouchers?productId=${seeded.windows}&format=csv`,
          token,
          api.child.pid!,
        );
        const redeemed = await httpExport(api.url, `/api/export/redeemed-vouchers?format=csv`, token, api.child.pid!);
        const {
          rows: [{ marked }],
        } = await pg.query(`SELECT count(*) FILTER (WHERE exported)::int AS marked FROM redemptions`);
        if (unredeemed.lines !== ROWS + 1 || redeemed.lines !== ROWS + 1 || marked !== ROWS) {
          throw new Error(`row counts: unredeemed ${unredeemed.lines}, redeemed ${redeemed.lines}, marked ${marked}`);
        }
        runs.push({ copyUnredeemed, copyRedeemed, unredeemed, redeemed });
        console.log(`run ${i + 1}: ${JSON.stringify(runs[i])}`);
      }
    } finally {
      await api.stop();
    }
    const row = (
      name: string,
      copyOf: (r: ExportRun) => { ms: number; bytes: number },
      httpOf: (r: ExportRun) => ExportRun['redeemed'],
    ) => {
      const ratio = spread(runs.map((r) => httpOf(r).ms / copyOf(r).ms));
      const copy = copyOf(runs[0]);
      const http = httpOf(runs[0]);
      return `| ${name} | ${formatSpread(spread(runs.map((r) => copyOf(r).ms / 1000)), 1)} s (${(copy.bytes / 1e6).toFixed(0)} MB) | ${formatSpread(spread(runs.map((r) => httpOf(r).ms / 1000)), 1)} s (${(http.bytes / 1e6).toFixed(0)} MB, ${(http.lines - 1).toLocaleString('en-US')} rows) | **${formatSpread(ratio, 2)}** | ${formatSpread(spread(runs.map((r) => httpOf(r).rssMb)))} MB | ${ratio.median <= TARGET ? 'yes' : '**no**'} |`;
    };
    const md = `## Exports

${new Date().toISOString().slice(0, 10)}, ${machine()}, ${ROWS.toLocaleString('en-US')} rows per export, ${RUNS} run${RUNS === 1 ? '' : 's'} (each: both COPYs, then both exports through the API; the redemption export's marks taken back between runs), each figure the median of the runs with their range. COPY runs the select of each export (\`COPY (…) TO STDOUT WITH (FORMAT csv, HEADER)\` through psql into \`wc -c\`): for the code export the plain \`SELECT v.code, p.name, v.created_at … ORDER BY p.name, v.seq DESC\` (the API's own COPY also neutralises cells and formats timestamps in SQL), for the redemption export the API's marking statement itself, in a transaction psql rolls back. The API's file is read to the end over HTTP. API idle RSS ${rssIdle.toFixed(0)} MB.

| export | COPY TO STDOUT | API over HTTP | API / COPY (target ≤ ${TARGET}) | API peak RSS during it | met |
|---|---|---|---|---|---|
${row(
  '`GET /api/export/unredeemed-vouchers?productId=…&format=csv`',
  (r) => r.copyUnredeemed,
  (r) => r.unredeemed,
)}
${row(
  `\`GET /api/export/redeemed-vouchers?format=csv\` (marks ${ROWS.toLocaleString('en-US')} rows exported)`,
  (r) => r.copyRedeemed,
  (r) => r.redeemed,
)}`;
    console.log(md);
    writeResult('export', md);
  });
}
