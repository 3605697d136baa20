/**
 * The two schemas of the redemption benchmark (`bench/redeem.ts`) and what a redemption costs each in pages: the lean
 * schema keeps only the indexes a redemption needs; `pageCounts` reads the buffer pages of the redemption's tables and
 * indexes, from which `pagesPerRedemption` tells which index a redemption pays for.
 */
import { Client } from 'pg';
import { sql } from './lib';

/**
 * The lean schema: every index of the redemption's tables that is neither a primary key nor unique (the rules'
 * constraints) nor the pool's key lookup is dropped, and user triggers are disabled (the counters have none since
 * issue 26: the statement's own upserts run on both schemas).
 */
export const REDEMPTION_TABLES = [
  'voucher_codes',
  'customers',
  'redemptions',
  'license_keys',
  'license_assignments',
  'success_tokens',
  'available_codes',
];

/** The indexes of the redemption's tables that it does not need: neither primary, nor unique, nor the pool's. */
export async function optionalIndexes(pg: Client): Promise<Array<{ name: string; def: string }>> {
  const { rows } = await pg.query(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
      WHERE t.relname = ANY($1) AND NOT x.indisunique AND NOT x.indisprimary AND i.relname <> 'idx_license_keys_pool'
      ORDER BY 1`,
    [REDEMPTION_TABLES],
  );
  return rows;
}

export async function leanSchema(url: string): Promise<string[]> {
  const pg = new Client({ connectionString: url });
  await pg.connect();
  try {
    const rows = await optionalIndexes(pg);
    for (const { name } of rows) await pg.query(`DROP INDEX ${name}`);
    for (const table of REDEMPTION_TABLES) await pg.query(`ALTER TABLE ${table} DISABLE TRIGGER USER`);
    await pg.query('VACUUM ANALYZE');
    return rows.map((r) => r.name);
  } finally {
    await pg.end();
  }
}

export interface PageCounts {
  redemptions: number;
  /** Pages (buffer hits and reads) of each index and table of the redemption's tables, this database only. */
  pages: Map<string, number>;
}

/**
 * What the redemptions cost in pages, independent of the machine's speed and noise: the buffer pages each index
 * and table of the redemption's tables was read or written through (`pg_statio_user_*`, this database only), and
 * how many redemptions were made meanwhile. Two of these give pages per redemption by index: which index a
 * redemption pays for (every one it inserts into is walked from its root).
 */
export async function pageCounts(url: string): Promise<PageCounts> {
  const [counted] = await sql(url, [`SELECT count(*)::int AS n FROM redemptions`]);
  const rows = await sql(url, [
    `SELECT indexrelname AS name, idx_blks_hit + coalesce(idx_blks_read, 0) AS pages
       FROM pg_statio_user_indexes WHERE relname = ANY($1)
     UNION ALL
     SELECT relname || ' (table)', heap_blks_hit + coalesce(heap_blks_read, 0)
       FROM pg_statio_user_tables WHERE relname = ANY($1)`,
    [REDEMPTION_TABLES],
  ]);
  return { redemptions: counted.n, pages: new Map(rows.map((r) => [r.name as string, Number(r.pages)])) };
}

/** No redemptions, no pages: the start of a sum of runs (`addPages`). */
export const noPages = (): PageCounts => ({ redemptions: 0, pages: new Map() });

/** Adds the redemptions and pages between two counts to `sum`. */
export function addPages(sum: PageCounts, before: PageCounts, after: PageCounts): void {
  sum.redemptions += after.redemptions - before.redemptions;
  for (const [name, pages] of after.pages) {
    sum.pages.set(name, (sum.pages.get(name) ?? 0) + pages - (before.pages.get(name) ?? 0));
  }
}

/** Pages per redemption of a sum of runs (`addPages`), largest first (those above 0.05). */
export function pagesPerRedemption(sum: PageCounts): Array<{ name: string; pages: number }> {
  const made = Math.max(1, sum.redemptions);
  return [...sum.pages]
    .map(([name, pages]) => ({ name, pages: pages / made }))
    .filter((p) => p.pages >= 0.05)
    .sort((a, b) => b.pages - a.pages);
}

export const sumPages = (costs: Array<{ pages: number }>) => costs.reduce((sum, c) => sum + c.pages, 0);
