import { randomBytes } from 'crypto';
import { mkdtempSync, rmSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { DataSource } from 'typeorm';
import { DataCipher } from '../../backend/src/config/data-cipher';
import { MISMATCHES_SQL } from './counters';
import { createMigratedDatabase, TestDatabase } from './database';
import { RedeemBody, testCiphers } from './factories';
import { childProcesses, httpFrom, HttpAnswer, Spawned, startBuiltApp, stopAllSpawned, waitUntil } from './processes';
import { eventually } from './redemptions';
import { freePort, TestSmtpServer } from './smtp';

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

export interface BurstRequest {
  body: RedeemBody;
  /** The page's Idempotency-Key, sent again with every retry. */
  key: string;
}

export interface BurstAttempt extends HttpAnswer {
  /** The request's index in the burst. */
  i: number;
  startedAt: number;
  endedAt: number;
}

export interface Burst {
  /** Every answer, in the order they came. */
  attempts: BurstAttempt[];
  /** Each request's successful answer (201, or 200: its redemption had committed before an earlier answer died). */
  succeeded: Map<number, HttpAnswer>;
}

/**
 * Redemptions sent by `parallel` clients, each retrying a failed request with the same body and Idempotency-Key
 * 100 ms later (Retry-After asks for 5 s; shorter here, to see a gap closely) until every request has succeeded.
 * `fault` runs beside it with the burst's progress so far; the burst fails if `fault` does, or if the app still
 * fails `giveUpMs` after the first failure.
 */
export async function retryingBurst(
  baseUrl: string,
  requests: BurstRequest[],
  parallel: number,
  fault: (burst: Burst) => Promise<void>,
  giveUpMs = 30_000,
): Promise<Burst> {
  const burst: Burst = { attempts: [], succeeded: new Map() };
  const queue = requests.map((_, i) => i);
  let firstFailure = 0;
  const clients = Array.from({ length: parallel }, async () => {
    for (let i = queue.shift(); i !== undefined; i = queue.shift()) {
      const startedAt = Date.now();
      const answer = await httpFrom('127.0.0.1', `${baseUrl}/api/redeem-voucher`, {
        body: requests[i].body,
        headers: { 'Idempotency-Key': requests[i].key },
      });
      burst.attempts.push({ ...answer, i, startedAt, endedAt: Date.now() });
      if (answer.status === 200 || answer.status === 201) {
        burst.succeeded.set(i, answer);
        continue;
      }
      queue.push(i);
      firstFailure ||= Date.now();
      if (Date.now() - firstFailure > giveUpMs) throw new Error(`the app still failed ${giveUpMs} ms on`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });
  await Promise.all([fault(burst), ...clients]);
  return burst;
}

/** The answer to a request whose database connection was lost or refused (docs/product.md §9.5). */
export function expectDatabaseUnavailable(answer: HttpAnswer): void {
  expect(answer).toMatchObject({
    status: 503,
    headers: expect.objectContaining({ 'retry-after': '5' }),
    body: {
      statusCode: 503,
      message: 'The service is briefly unavailable. Please try again in a moment.',
      error: 'Service Unavailable',
    },
  });
}

/** Waits until `count` redemptions of `product` have their order e-mail sent (the jobs went on after the fault). */
export async function orderMailsSent(db: DataSource, product: string, count: number, timeoutMs = 60_000) {
  await eventually(
    async () =>
      (
        await db.query(`SELECT count(*)::int AS n FROM redemptions WHERE product_id = $1 AND email_status = 'sent'`, [
          product,
        ])
      )[0].n === count,
    timeoutMs,
    'every order e-mail to be sent',
  );
}

/**
 * Every order e-mail of `customers` went out as one message: once, or a second copy with the same Message-ID where
 * the sender's write that marked it sent was lost (docs/operations.md "Order e-mail delivery").
 */
export function expectOneMessageEach(smtp: TestSmtpServer, customers: string[]): void {
  const wanted = new Set(customers.map((c) => c.toLowerCase()));
  const ids = new Map<string, Set<string | undefined>>();
  const copies = new Map<string, number>();
  for (const m of smtp.messages) {
    const to = [m.to].flat()[0]!.value[0].address!.toLowerCase();
    if (!wanted.has(to)) continue;
    ids.set(to, (ids.get(to) ?? new Set()).add(m.messageId));
    copies.set(to, (copies.get(to) ?? 0) + 1);
  }
  expect(ids.size).toBe(wanted.size);
  for (const [to, messageIds] of ids) {
    expect({ to, messageIds: messageIds.size }).toEqual({ to, messageIds: 1 });
    expect(copies.get(to)).toBeLessThanOrEqual(2);
  }
}
