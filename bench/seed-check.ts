/**
 * The seed is deterministic: two databases seeded with the same size hold the same data (seedChecksum), and the
 * named adversarial shapes are there in their proportions. Nothing is written to docs/benchmarks.md.
 *
 *   npm run bench -- seed-check   (BENCH_REDEMPTIONS=20000 by default here)
 */
import { Client } from 'pg';
import { runMigrations } from '../backend/src/database/migrate';
import { withDatabase } from './lib';
import { SEED, seedChecksum, seedRedemptions, SHAPES } from './seed';

const REDEMPTIONS = Number(process.env.BENCH_REDEMPTIONS ?? 20_000);

async function seedOnce(): Promise<{ checksum: string; shapes: Record<string, number> }> {
  return withDatabase(async (url) => {
    await runMigrations(url);
    await seedRedemptions(url, {
      redemptions: REDEMPTIONS,
      exportedShare: 0.3,
      unredeemed: Math.ceil(REDEMPTIONS / 5),
    });
    const pg = new Client({ connectionString: url });
    await pg.connect();
    try {
      const { rows } = await pg.query(
        `SELECT (SELECT count(*)::int FROM customers WHERE first_name = $1 AND last_name = $2) AS "sharedName",
                (SELECT count(*)::int FROM customers WHERE email LIKE '%.' || $3) AS "sharedDomain",
                (SELECT count(*)::int FROM customers) AS customers,
                (SELECT count(*)::int FROM voucher_codes WHERE code LIKE $4 || '%') AS "sharedCodePrefix",
                (SELECT count(*)::int FROM voucher_codes) AS codes,
                (SELECT count(*)::int FROM redemptions WHERE held_at IS NOT NULL) AS held,
                (SELECT count(*)::int FROM redemptions) AS redemptions`,
        [SHAPES.sharedName.first, SHAPES.sharedName.last, SHAPES.sharedDomain, SHAPES.sharedCodePrefix.prefix],
      );
      return { checksum: await seedChecksum(pg), shapes: rows[0] };
    } finally {
      await pg.end();
    }
  });
}

export async function main(): Promise<void> {
  const first = await seedOnce();
  const second = await seedOnce();
  const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(2)}%`;
  const s = first.shapes;
  console.log(
    `${REDEMPTIONS} redemptions, seed ${SEED}: the name ${SHAPES.sharedName.first} ${SHAPES.sharedName.last} on ${s.sharedName} customers ` +
      `(${pct(s.sharedName, s.customers)}), the domain ${SHAPES.sharedDomain} on ${s.sharedDomain} of ${s.customers}, ` +
      `the prefix ${SHAPES.sharedCodePrefix.prefix} on ${s.sharedCodePrefix} of ${s.codes} codes (${pct(s.sharedCodePrefix, s.codes)}), ` +
      `${s.held} redemptions held for review (${pct(s.held, s.redemptions)})`,
  );
  console.log(`checksums: ${first.checksum} and ${second.checksum}`);
  if (first.checksum !== second.checksum || JSON.stringify(first.shapes) !== JSON.stringify(second.shapes)) {
    throw new Error('two seeds of the same size differ: the seed is not deterministic');
  }
  console.log('identical: the seed is deterministic');
}
