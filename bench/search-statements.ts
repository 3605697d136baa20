/**
 * Where one redemption-list search spends its time, statement by statement, on a kept benchmark database (the
 * `lists` benchmark's `BENCH_LISTS_DB`): RedemptionListService answers the search five times over one pool (the first
 * warms the connections' caches), then the last answer's statements are printed with their times, and written with
 * their parameters to a JSON file for `EXPLAIN (ANALYZE, BUFFERS)` by hand (docs/benchmarks.md, "Three indexes fewer").
 *
 *   TS_NODE_TRANSPILE_ONLY=true node -r ts-node/register bench/search-statements.ts <database url> <term> [out.json]
 */
import { writeFileSync } from 'fs';
import { DataSource } from 'typeorm';
import { AppConfig } from '../backend/src/config/app-config';
import { DataCipher } from '../backend/src/config/data-cipher';
import { DatabaseService } from '../backend/src/database/database.service';
import { dataSourceOptions } from '../backend/src/database/data-source-options';
import { ListRedemptionsQuery } from '../backend/src/modules/redemption/dto/redemption-admin.dto';
import { RedemptionListRepository } from '../backend/src/modules/redemption/redemption-list.repository';
import { RedemptionListService } from '../backend/src/modules/redemption/redemption-list.service';
import { BENCH_DATA_KEY } from './lib';

const ms = (since: bigint) => Number(process.hrtime.bigint() - since) / 1e6;

async function main(): Promise<void> {
  const [url, term, out = '/tmp/search-statements.json'] = process.argv.slice(2);
  if (!url || !term) throw new Error('usage: search-statements.ts <database url> <term> [out.json]');
  const db = new DataSource(dataSourceOptions(url, { extra: { max: 4 } }));
  await db.initialize();
  // What the list reads of the configuration: its exact-count limit (the default), and the bulk pool's defaults.
  const config = { listExactCountLimit: 100_000 } as AppConfig;
  const repository = new RedemptionListRepository(
    new DatabaseService(db, config),
    new DataCipher(Buffer.from(BENCH_DATA_KEY, 'base64')),
  );
  const service = new RedemptionListService(repository, config);
  const run = db.query.bind(db);
  let sent: Array<{ sql: string; params: unknown[]; ms: number }> = [];
  db.query = (async (sql: string, params?: unknown[]) => {
    const started = process.hrtime.bigint();
    const rows = await run(sql, params);
    sent.push({ sql, params: params ?? [], ms: ms(started) });
    return rows;
  }) as typeof db.query;
  try {
    for (let i = 0; i < 5; i++) {
      sent = [];
      const started = process.hrtime.bigint();
      const answer = await service.list({ search: term, page: 1, limit: 50 } as ListRedemptionsQuery);
      console.log(`answer ${i + 1}: ${ms(started).toFixed(1)} ms, ${answer.redemptions.length} rows`);
    }
    for (const s of sent) console.log(`${s.ms.toFixed(1).padStart(7)} ms  ${s.sql.replace(/\s+/g, ' ').slice(0, 150)}`);
    writeFileSync(out, JSON.stringify(sent, null, 1));
    console.log(`statements and parameters: ${out}`);
  } finally {
    await db.destroy();
  }
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
