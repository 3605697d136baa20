import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { MISMATCHES_SQL } from './counters';
import { createMigratedDatabase, TestDatabase } from './database';
import { testCiphers } from './factories';
import { childProcesses, httpFrom, Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './processes';
import { freePort } from './smtp';

/*
 * What the failure-path suites (test/failure-*.e2e-spec.ts, docs/testing.md "Failure paths") check after every fault.
 */

/**
 * Nothing partial: every counter equals its count(*) (test/helpers/counters.ts), no code is redeemed without its
 * redemption, no redemption of a licence-managed product lacks its key unless it is waiting for one.
 */
export async function expectNothingPartial(db: DataSource): Promise<void> {
  expect(await db.query(MISMATCHES_SQL)).toEqual([]);
  const [orphans] = await db.query(
    `SELECT (SELECT count(*)::int FROM voucher_codes v WHERE v.is_redeemed
                AND NOT EXISTS (SELECT 1 FROM redemptions r WHERE r.voucher_code_id = v.id)) AS codes_without_redemption,
            (SELECT count(*)::int FROM redemptions r JOIN products p ON p.id = r.product_id
              WHERE p.is_license_managed AND NOT r.awaiting_license
                AND NOT EXISTS (SELECT 1 FROM license_assignments a WHERE a.redemption_id = r.id)) AS redemptions_without_key,
            (SELECT count(*)::int FROM redemptions r
              WHERE NOT EXISTS (SELECT 1 FROM success_tokens t WHERE t.redemption_id = r.id)) AS redemptions_without_token`,
  );
  expect(orphans).toEqual({ codes_without_redemption: 0, redemptions_without_key: 0, redemptions_without_token: 0 });
}

export interface BuiltStack {
  api: Spawned;
  url: string;
  db: DataSource;
  database: TestDatabase;
  /** The API's forked jobs worker (`--jobs-worker`), if one runs now. */
  workerPid(): number | undefined;
  close(): Promise<void>;
}

/**
 * The built app (`dist/`) as `npm start` runs it without REDIS_URL: an API process that forks its jobs worker
 * (EMBEDDED_WORKER, docs/architecture.md "Processes"), on a fresh database of the machine's PostgreSQL, so a test can
 * kill the worker at the moment it chooses. `db` is the test's own connection (keys sealed under the same DATA_KEY).
 */
export async function startBuiltStack(env: Record<string, string>): Promise<BuiltStack> {
  const database = await createMigratedDatabase('ovr_fail');
  const dataDir = mkdtempSync(join(tmpdir(), 'ovr-fail-'));
  const dataKey = randomBytes(32).toString('base64');
  const port = await freePort();
  const api = startBuiltApp('api', {
    NODE_ENV: 'production',
    PUBLIC_URL: 'https://licences.example.test',
    DATABASE_URL: database.url,
    JWT_SECRET: randomBytes(48).toString('base64'),
    DATA_KEY: dataKey,
    ADMIN_PASSWORD: 'Fa1lure!Paths#Admin',
    DATA_DIR: dataDir,
    PORT: String(port),
    SERVE_FRONTEND: 'false',
    LOG_LEVEL: 'warn',
    DB_POOL_SIZE: '6',
    REDEEM_RATE_LIMIT: '0',
    POOL_ALERT_MIN: '0',
    POOL_ALERT_DAYS: '0',
    ...env,
  });
  const url = `http://127.0.0.1:${port}`;
  await waitUntil(
    'the API to be healthy',
    async () => (await httpFrom('127.0.0.1', `${url}/api/health`)).status === 200,
    {
      timeoutMs: 90_000,
      processes: [api],
    },
  );
  const db = new DataSource({ type: 'postgres', url: database.url, extra: { max: 4 } });
  await db.initialize();
  testCiphers.set(db, new DataCipher(Buffer.from(dataKey, 'base64')));
  return {
    api,
    url,
    db,
    database,
    workerPid: () => childProcesses(api.child.pid!).find((p) => p.args.includes('--jobs-worker'))?.pid,
    close: async () => {
      await stopAllSpawned();
      await db.destroy();
      await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
