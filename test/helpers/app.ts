import { INestApplication } from '@nestjs/common';
import { mkdtempSync, readFileSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createHttpApp, prepareDatabase } from '../../backend/src/app.factory';
import { AppConfig, loadConfig } from '../../backend/src/config/app-config';
import type { AppModuleOptions } from '../../backend/src/app.module';
import { createMigratedDatabase, TestDatabase } from './database';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { testCiphers } from './factories';
import { ApiContract, contractError } from './contract';

export interface TestApp {
  app: INestApplication;
  config: AppConfig;
  db: DataSource;
  database: TestDatabase;
  dataDir: string;
  /** supertest against the running server; every response is checked against the OpenAPI document (helpers/contract.ts). */
  http: () => ReturnType<typeof request>;
  baseUrl: string;
  close(): Promise<void>;
}

export const TEST_ADMIN_PASSWORD = 'Adm1n!Password#2024';

export interface TestAppOptions {
  /**
   * Run on this database instead of a fresh one: a second API instance of the same service. The
   * database is then left for its owner (the first app) to drop.
   */
  database?: TestDatabase;
}

/**
 * The real application on a fresh database with migrations applied, listening on a free port.
 * `env` overrides the test defaults (no SMTP: .eml files in a temp dir; no Redis: in-process jobs).
 */
export async function startTestApp(
  env: Record<string, string | undefined> = {},
  options: TestAppOptions & Pick<AppModuleOptions, 'logStream'> = {},
): Promise<TestApp> {
  const database = options.database ?? (await createMigratedDatabase());
  const dataDir = mkdtempSync(join(tmpdir(), 'ovr-test-'));
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    DATA_DIR: dataDir,
    DATABASE_URL: database.url,
    JWT_SECRET: 'test-secret-that-is-at-least-32-bytes-long!!',
    ADMIN_PASSWORD: TEST_ADMIN_PASSWORD,
    REDEEM_RATE_LIMIT: '0',
    SERVE_FRONTEND: 'false',
    MAIL_BACKOFF_MS: '200',
    MAIL_ATTEMPTS: '3',
    MAIL_SWEEP_INTERVAL_MS: '500',
    MAIL_SWEEP_AFTER_MS: '1000',
    // No low-pool alerts unless a test asks for them: a test's small key pool would otherwise mail its admins
    // beside the order e-mails it counts (test/pool-forecast.e2e-spec.ts sets its own limits).
    POOL_ALERT_MIN: '0',
    POOL_ALERT_DAYS: '0',
    ...env,
  });
  await prepareDatabase(config);
  const app = await createHttpApp(config, database.url, { logStream: options.logStream });
  await app.listen(0, '127.0.0.1');
  const baseUrl = await app.getUrl();
  const db = app.get(DataSource);
  testCiphers.set(db, app.get(DataCipher));
  return {
    app,
    config,
    db,
    database,
    dataDir,
    baseUrl,
    http: () => checkedRequests(app),
    close: async () => {
      await app.close();
      if (!options.database) await database.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * The contract every response is checked against: the checked-in document the web app's client is generated from
 * (frontend/src/api/openapi.json), which test/openapi.e2e-spec.ts proves is the one the app serves (its routes do not
 * depend on configuration). Read once per test file: building it from the app took 0.2 s in each.
 */
const CONTRACT_FILE = join(__dirname, '..', '..', 'frontend', 'src', 'api', 'openapi.json');
let contract: ApiContract | undefined;

type Agent = ReturnType<typeof request>;
type Test = ReturnType<Agent['get']>;

/**
 * supertest whose every request fails its test when the response breaks the API contract: an undeclared status or
 * a JSON body that does not validate against the operation's declared schema. The test's own expectations run
 * first, so a wrong status is reported as the test states it.
 */
function checkedRequests(app: INestApplication): Agent {
  contract ??= new ApiContract(JSON.parse(readFileSync(CONTRACT_FILE, 'utf8')));
  const agent = request(app.getHttpServer());
  const checked = Object.create(agent) as Record<string, unknown>;
  for (const method of ['get', 'post', 'put', 'patch', 'delete', 'del', 'head', 'options']) {
    checked[method] = (url: string) => {
      const test = (agent as any)[method](url) as Test & { assert: (...args: any[]) => void };
      const assert = test.assert.bind(test);
      test.assert = (resError: Error | null, res: any, fn?: (err: Error | null, res: any) => void) =>
        assert(resError, res, (err: Error | null, response: any) => {
          const violation =
            err || !response
              ? undefined
              : contract!.check(
                  method === 'del' ? 'delete' : method,
                  url,
                  response.status,
                  response.headers['content-type'],
                  response.body,
                );
          fn?.call(test, err ?? (violation ? contractError(violation, url, response.body) : null), response);
        });
      return test;
    };
  }
  return checked as unknown as Agent;
}
