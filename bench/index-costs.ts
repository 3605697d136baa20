/**
 * What each index costs the redemption (issue 12: "each index pays its way on the write path"): pgbench runs the
 * redemption statement on the full schema, then once per optional index with only that index dropped (built again
 * afterwards), then with user triggers disabled (there are no counter triggers since issue 26), then on the full schema again. Every run redeems codes of
 * its own and starts on freshly vacuumed tables. The change of each run against the mean of the two full-schema runs is that index's cost.
 *
 *   npm run bench -- index-costs   (BENCH_SECONDS per run, default 8; BENCH_CLIENTS)
 */
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { machine, withDatabase, writeResult } from './lib';
import { postgresCpuMs } from './proc';
import { pgbench, seedPool } from './redeem';
import { optionalIndexes, REDEMPTION_TABLES } from './redeem-schema';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
/** Codes per run: more than a run redeems, so random picks rarely repeat. */
const CODES = 60_000;

interface Run {
  tps: number;
  /** PostgreSQL's CPU per redemption, ms. */
  cpu: number;
}

export async function main(): Promise<void> {
  await withDatabase(async (url) => {
    await runMigrations(url);
    const pg = new Client({ connectionString: url });
    await pg.connect();
    try {
      const indexes = await optionalIndexes(pg);
      const runs = indexes.length + 3;
      await seedPool(
        pg,
        Array.from({ length: runs }, (_, i) => `R${i + 1}-`),
        CODES,
      );

      let run = 0;
      // Every run starts vacuumed: the pool's partial index (the first free key in order) collects the dead entries
      // of the keys taken before, which slowed later runs by up to 45% in a first try without it.
      // Each run's tps and PostgreSQL's CPU per redemption (the server's own work, without pgbench's).
      const made = async () => (await pg.query(`SELECT count(*)::int AS n FROM redemptions`)).rows[0].n as number;
      const bench = async (): Promise<Run> => {
        await pg.query(`VACUUM ANALYZE ${REDEMPTION_TABLES.join(', ')}`);
        const [count, cpu] = [await made(), await postgresCpuMs(url)];
        const tps = await pgbench(url, `R${++run}-`, CODES, SECONDS);
        // pgbench's backends report their CPU to the postmaster as they exit.
        await new Promise((r) => setTimeout(r, 500));
        return { tps, cpu: ((await postgresCpuMs(url)) - cpu) / Math.max(1, (await made()) - count) };
      };
      const first = await bench();
      const rows: Array<[string, Run]> = [];
      for (const { name, def } of indexes) {
        await pg.query(`DROP INDEX ${name}`);
        rows.push([`without \`${name}\``, await bench()]);
        await pg.query(def);
      }
      // The counter triggers are gone (issue 26): the run without user triggers remains as a check that none is left.
      for (const table of REDEMPTION_TABLES) await pg.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
      rows.push(['without user triggers (none since issue 26: the same schema)', await bench()]);
      for (const table of REDEMPTION_TABLES) await pg.query(`ALTER TABLE ${table} ENABLE TRIGGER USER`);
      const last = await bench();
      const base = (first.tps + last.tps) / 2;
      const baseCpu = (first.cpu + last.cpu) / 2;
      const change = (value: number, against: number) =>
        `${value >= against ? '+' : ''}${(((value - against) / against) * 100).toFixed(0)}%`;
      const md = `## What each index costs the redemption

${new Date().toISOString().slice(0, 10)}, ${machine()}, pgbench running the redemption statement, ${SECONDS} s per run, codes of its own per run, each on freshly vacuumed tables. Full schema: ${first.tps.toFixed(0)} tps and ${first.cpu.toFixed(3)} ms of PostgreSQL CPU per redemption first, ${last.tps.toFixed(0)} tps and ${last.cpu.toFixed(3)} ms last (the base is their mean, ${base.toFixed(0)} tps, ${baseCpu.toFixed(3)} ms). Transactions per second on this machine move by up to ±18% between runs (indexes the redemption never writes, such as \`idx_voucher_codes_void_batch\`, show that much); the server's CPU per redemption (every process of the server, \`postgresCpuMs\`) leaves pgbench's own CPU out but moves about as much (the server's own work varies: checkpoints, autovacuum); the rows are sorted by it.

| run | tps | change | PostgreSQL CPU per redemption | change |
|---|---|---|---|---|
${rows
  .sort((a, b) => a[1].cpu - b[1].cpu)
  .map(
    ([what, r]) =>
      `| ${what} | ${r.tps.toFixed(0)} | ${change(r.tps, base)} | ${r.cpu.toFixed(3)} ms | ${change(r.cpu, baseCpu)} |`,
  )
  .join('\n')}`;
      console.log(md);
      writeResult('index-costs', md);
    } finally {
      await pg.end();
    }
  });
}
