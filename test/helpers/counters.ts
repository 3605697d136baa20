import { pick, random, randomHex, randomInt } from './seed';
import { JobHandlers } from '../../backend/src/modules/jobs/job-handlers.service';
import { StatsRepository } from '../../backend/src/modules/stats/stats.repository';
import { createProduct } from './admin-data';
import { countedCodes, moveRedemptions } from './counted-sql';
import { startTestApp, TestApp } from './app';
import { bearer, tokenFor } from './auth';
import { licenseManagedProduct, redeemBody } from './factories';

/*
 * Issue 12: the counters (product_counts, redemption_day_counts, license_key_counts of migration 1763820000000,
 * kept since issue 26 by every writer in its own statement, no triggers) equal count(*) at every moment, per product and per upload batch (migration
 * 1763823000000, exported redemptions included). What the counters suites share: the statement that compares
 * counters and counts, the app they run on, and the random mix of operations through the real API (redeem, upload,
 * void as JSON and as a file, codes added without a batch, exports, delete codes, delete redemptions, assign keys (by
 * hand, a volume key to several, pool keys by Fix Pending Emails),
 * add/toggle/delete pool keys, retention, Clean System). test/counters-random-operations.e2e-spec.ts runs the mix 8
 * at a time while a checker compares; test/counters-figures.e2e-spec.ts runs it, then compares the product list,
 * the batches and the statistics with count(*).
 */

/** Counters minus count(*), per figure: every row of the answer is a mismatch. One statement, one snapshot. */
export const MISMATCHES_SQL = `
WITH codes AS (
  SELECT product_id, count(*) FILTER (WHERE NOT is_redeemed AND voided_at IS NULL) AS available,
         count(*) FILTER (WHERE is_redeemed) AS redeemed, count(*) FILTER (WHERE voided_at IS NOT NULL) AS void
    FROM voucher_codes GROUP BY product_id),
reds AS (SELECT product_id, count(*) AS redemptions FROM redemptions GROUP BY product_id),
counted AS (
  SELECT p.id AS product_id, coalesce(c.available, 0) AS available, coalesce(c.redeemed, 0) AS redeemed,
         coalesce(c.void, 0) AS void, coalesce(r.redemptions, 0) AS redemptions
    FROM products p LEFT JOIN codes c ON c.product_id = p.id LEFT JOIN reds r ON r.product_id = p.id),
kept AS (
  SELECT product_id, sum(available) AS available, sum(redeemed) AS redeemed, sum(void) AS void,
         sum(redemptions) AS redemptions
    FROM product_counts GROUP BY product_id),
days_counted AS (
  SELECT (r.redeemed_at AT TIME ZONE z.time_zone)::date AS day, r.product_id, count(*) AS n
    FROM redemptions r, stats_settings z GROUP BY 1, 2),
days_kept AS (SELECT day, product_id, sum(redemptions) AS n FROM redemption_day_counts GROUP BY 1, 2),
keys_counted AS (
  SELECT product_id, count(*) AS total, count(*) FILTER (WHERE is_active) AS active,
         count(*) FILTER (WHERE current_activations = 0) AS available,
         count(*) FILTER (WHERE current_activations > 0 AND current_activations < max_activations) AS partially_used,
         count(*) FILTER (WHERE current_activations >= max_activations) AS fully_used,
         coalesce(sum(max_activations - current_activations) FILTER (WHERE is_active), 0) AS room
    FROM license_keys WHERE NOT is_manual GROUP BY product_id),
batch_codes AS (
  SELECT product_id, coalesce(batch_id, product_id) AS batch_id,
         count(*) FILTER (WHERE NOT is_redeemed AND voided_at IS NULL) AS available,
         count(*) FILTER (WHERE is_redeemed) AS redeemed, count(*) FILTER (WHERE voided_at IS NOT NULL) AS void
    FROM voucher_codes GROUP BY 1, 2),
batch_reds AS (
  SELECT r.product_id, coalesce(v.batch_id, r.product_id) AS batch_id, count(*) AS redemptions,
         count(*) FILTER (WHERE r.exported) AS exported
    FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id GROUP BY 1, 2),
batch_counted AS (
  SELECT coalesce(c.product_id, r.product_id) AS product_id, coalesce(c.batch_id, r.batch_id) AS batch_id,
         coalesce(c.available, 0) AS available, coalesce(c.redeemed, 0) AS redeemed, coalesce(c.void, 0) AS void,
         coalesce(r.redemptions, 0) AS redemptions, coalesce(r.exported, 0) AS exported
    FROM batch_codes c FULL JOIN batch_reds r ON r.product_id = c.product_id AND r.batch_id = c.batch_id),
batch_kept AS (
  SELECT product_id, batch_id, sum(available) AS available, sum(redeemed) AS redeemed, sum(void) AS void,
         sum(redemptions) AS redemptions, sum(exported) AS exported
    FROM product_counts GROUP BY 1, 2),
keys_kept AS (
  SELECT product_id, sum(total) AS total, sum(active) AS active, sum(available) AS available,
         sum(partially_used) AS partially_used, sum(fully_used) AS fully_used, sum(room) AS room
    FROM license_key_counts GROUP BY product_id)
SELECT 'product' AS what, c.product_id::text AS key, row(c.available, c.redeemed, c.void, c.redemptions)::text AS counted,
       row(k.available, k.redeemed, k.void, k.redemptions)::text AS kept
  FROM counted c LEFT JOIN kept k ON k.product_id = c.product_id
 WHERE (c.available, c.redeemed, c.void, c.redemptions)
       IS DISTINCT FROM (coalesce(k.available, 0), coalesce(k.redeemed, 0), coalesce(k.void, 0), coalesce(k.redemptions, 0))
UNION ALL
SELECT 'batch', coalesce(c.product_id, k.product_id) || ' ' || coalesce(c.batch_id, k.batch_id),
       row(c.available, c.redeemed, c.void, c.redemptions, c.exported)::text,
       row(k.available, k.redeemed, k.void, k.redemptions, k.exported)::text
  FROM batch_counted c FULL JOIN batch_kept k ON k.product_id = c.product_id AND k.batch_id = c.batch_id
 WHERE coalesce(c.product_id, k.product_id) IN (SELECT id FROM products)
   AND (coalesce(c.available, 0), coalesce(c.redeemed, 0), coalesce(c.void, 0), coalesce(c.redemptions, 0), coalesce(c.exported, 0))
       IS DISTINCT FROM (coalesce(k.available, 0), coalesce(k.redeemed, 0), coalesce(k.void, 0), coalesce(k.redemptions, 0),
                         coalesce(k.exported, 0))
UNION ALL
SELECT 'day', coalesce(c.day, k.day) || ' ' || coalesce(c.product_id, k.product_id), c.n::text, k.n::text
  FROM days_counted c FULL JOIN days_kept k ON k.day = c.day AND k.product_id = c.product_id
 WHERE coalesce(c.n, 0) <> coalesce(k.n, 0)
UNION ALL
SELECT 'keys', coalesce(c.product_id, k.product_id)::text,
       row(c.total, c.active, c.available, c.partially_used, c.fully_used, c.room)::text,
       row(k.total, k.active, k.available, k.partially_used, k.fully_used, k.room)::text
  FROM keys_counted c FULL JOIN keys_kept k ON k.product_id = c.product_id
 WHERE (coalesce(c.total, 0), coalesce(c.active, 0), coalesce(c.available, 0), coalesce(c.partially_used, 0),
        coalesce(c.fully_used, 0), coalesce(c.room, 0))
       IS DISTINCT FROM (coalesce(k.total, 0), coalesce(k.active, 0), coalesce(k.available, 0),
                         coalesce(k.partially_used, 0), coalesce(k.fully_used, 0), coalesce(k.room, 0))`;

export const OPERATIONS = 2000;
export const PARALLEL = 8;
/** Customers are few, so the one-licence-per-e-mail rule refuses some redemptions too. */
const EMAILS = Array.from({ length: 300 }, (_, i) => `counter.${i}@example.com`);

/** The app of a counters suite: Kathmandu time (a day that is not UTC's), no guessing limit, four products (two licence-managed). */
export async function startCountersApp() {
  const t = await startTestApp({ TZ: 'Asia/Kathmandu', REDEEM_GUESS_LIMIT: '0' });
  const auth = bearer(await tokenFor(t, 'admin'));
  const licensed = [await licenseManagedProduct(t.db, 'Counters A'), await licenseManagedProduct(t.db, 'Counters B')];
  const products = [...licensed, await createProduct(t, auth), await createProduct(t, auth)];
  return { t, auth, products, licensed };
}

export type Operation = [weight: number, name: string, run: () => Promise<unknown>];

/**
 * The random mix on `products` (pool keys on the `licensed` ones): every operation with its weight, and a weighted
 * random pick. A run throws on an answer it does not allow; `onRedeemed` is called for every redemption made.
 */
export function randomOperations(
  t: TestApp,
  auth: { Authorization: string },
  products: string[],
  licensed: string[],
  onRedeemed: () => void = () => undefined,
): { operations: Operation[]; chooseOperation: () => Operation } {
  /** Every code ever uploaded (some deleted or cleaned since): operations pick from it at random. */
  const codes: Array<{ code: string; product: string }> = [];

  // Rows in an order drawn from the seed (not PostgreSQL's random()), so TEST_SEED replays the choices too.
  const shuffled = () => `md5(id::text || '${randomHex(4)}')`;
  const randomRow = async (sql: string, params: unknown[] = []) =>
    (await t.db.query(`${sql} ORDER BY ${shuffled()} LIMIT 1`, params))[0];
  const newCode = () => `CNT-${randomHex(6).toUpperCase()}`;
  const ok = (res: { status: number; body: unknown }, allowed: number[]) => {
    if (!allowed.includes(res.status)) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`);
  };

  const operations: Operation[] = [
    [
      40,
      'redeem',
      async () => {
        if (!codes.length) return;
        const { code } = pick(codes);
        const res = await t
          .http()
          .post('/api/redeem-voucher')
          .send(redeemBody({ voucherCode: code, email: pick(EMAILS) }));
        // 400 "not available": the code was being uploaded (again, after a Clean System) by a transaction that
        // committed between the claim, which could not see it yet, and the statement that explains the refusal.
        ok(res, [200, 201, 400, 404, 409, 410]);
        if (res.status === 201) onRedeemed();
      },
    ],
    [
      10,
      'upload',
      async () => {
        const product = pick(products);
        const fresh = Array.from({ length: 1 + randomInt(30) }, newCode);
        const again = codes.length ? [pick(codes).code, pick(codes).code] : [];
        const res = await t
          .http()
          .post(`/api/products/${product}/voucher-codes`)
          .set(auth)
          .attach('file', Buffer.from(['code', ...fresh, ...again, 'not a code!'].join('\n')), 'codes.csv');
        ok(res, [201]);
        codes.push(...fresh.map((code) => ({ code, product })));
      },
    ],
    [
      8,
      'void',
      async () => {
        const product = pick(products);
        const named = codes.filter((c) => c.product === product);
        if (!named.length) return;
        const res = await t
          .http()
          .post(`/api/products/${product}/voucher-codes/void`)
          .set(auth)
          .send({ codes: Array.from({ length: 1 + randomInt(4) }, () => pick(named).code) });
        ok(res, [200, 201]);
      },
    ],
    [
      3,
      'void file',
      async () => {
        const product = pick(products);
        const named = codes.filter((c) => c.product === product);
        if (!named.length) return;
        const file = Array.from({ length: 1 + randomInt(4) }, () => pick(named).code).join('\n');
        ok(
          await t
            .http()
            .post(`/api/products/${product}/voucher-codes/void`)
            .set(auth)
            .attach('file', Buffer.from(file), 'refunds.txt'),
          [200],
        );
      },
    ],
    [
      2,
      'codes added without a batch (SQL)',
      async () => {
        const product = pick(products);
        const fresh = Array.from({ length: 1 + randomInt(5) }, newCode);
        // A writer outside the application counts itself as the application's writers do (test/helpers/counted-sql.ts).
        await t.db.query(
          countedCodes(
            `INSERT INTO voucher_codes (code, product_id) SELECT unnest($1::text[]), $2 ON CONFLICT DO NOTHING`,
          ),
          [fresh, product],
        );
        codes.push(...fresh.map((code) => ({ code, product })));
      },
    ],
    [
      4,
      'export selected redemptions',
      async () => {
        const ids = (await t.db.query(`SELECT id FROM redemptions ORDER BY ${shuffled()} LIMIT 6`)).map(
          (r: { id: string }) => r.id,
        );
        if (!ids.length) return;
        const res = await t
          .http()
          .post('/api/export/selected-redemptions')
          .set(auth)
          .send({ redemptionIds: ids, format: 'csv' });
        ok(res, [200, 404]);
      },
    ],
    [
      1,
      'export the redemption list',
      async () => {
        const res = await t
          .http()
          .get('/api/export/redeemed-vouchers')
          .query({ format: 'csv', showExported: String(randomInt(2) === 0) })
          .set(auth);
        ok(res, [200, 404]);
      },
    ],
    [
      5,
      'delete code',
      async () => {
        const row = await randomRow(`SELECT id FROM voucher_codes`);
        if (row) ok(await t.http().delete(`/api/voucher-codes/${row.id}`).set(auth), [200, 404, 409]);
      },
    ],
    [
      3,
      'delete selected codes',
      async () => {
        const product = pick(products);
        const ids = (
          await t.db.query(`SELECT id FROM voucher_codes WHERE product_id = $1 ORDER BY ${shuffled()} LIMIT 5`, [
            product,
          ])
        ).map((r: { id: string }) => r.id);
        if (!ids.length) return;
        const res = await t
          .http()
          .delete(`/api/products/${product}/voucher-codes`)
          .set(auth)
          .send({ deleteType: 'selected', voucherCodeIds: ids });
        ok(res, [200]);
      },
    ],
    [
      1,
      'delete all unredeemed',
      async () => {
        const res = await t
          .http()
          .delete(`/api/products/${pick(products)}/voucher-codes`)
          .set(auth)
          .send({ deleteType: 'all-unredeemed' });
        ok(res, [200]);
      },
    ],
    [
      5,
      'delete redemption',
      async () => {
        const row = await randomRow(`SELECT id FROM redemptions`);
        if (row) ok(await t.http().delete(`/api/redemptions/${row.id}`).set(auth), [200, 404]);
      },
    ],
    [
      2,
      'bulk delete redemptions',
      async () => {
        const ids = (await t.db.query(`SELECT id FROM redemptions ORDER BY ${shuffled()} LIMIT 4`)).map(
          (r: { id: string }) => r.id,
        );
        if (ids.length)
          ok(await t.http().post('/api/redemptions/bulk-delete').set(auth).send({ redemptionIds: ids }), [200, 201]);
      },
    ],
    [
      6,
      'add pool key',
      async () => {
        const res = await t
          .http()
          .post('/api/license-keys')
          .set(auth)
          .send({
            productId: pick(licensed),
            licenseKey: `KEY-${randomHex(5).toUpperCase()}`,
            downloadLink: 'https://dl.example.com/k',
            licenseType: randomInt(3) ? 'single-user' : 'volume',
            maxActivations: 3,
          });
        ok(res, [201]);
      },
    ],
    [
      2,
      'toggle pool key',
      async () => {
        const row = await randomRow(`SELECT id, is_active FROM license_keys WHERE NOT is_manual`);
        // 404: deleted meanwhile by a concurrent "delete pool key" or Clean System.
        if (row)
          ok(
            await t.http().put(`/api/license-keys/${row.id}`).set(auth).send({ isActive: !row.is_active }),
            [200, 404],
          );
      },
    ],
    [
      1,
      'delete pool key',
      async () => {
        const row = await randomRow(`SELECT id FROM license_keys WHERE NOT is_manual`);
        if (row) ok(await t.http().delete(`/api/license-keys/${row.id}`).set(auth), [200, 404, 409]);
      },
    ],
    [
      4,
      'assign a key by hand',
      async () => {
        const row = await randomRow(`SELECT id FROM redemptions WHERE awaiting_license`);
        if (!row) return;
        const res = await t
          .http()
          .post(`/api/redemptions/${row.id}/assign-license`)
          .set(auth)
          .send({ licenseKey: `HAND-${randomInt(5)}`, downloadLink: 'https://dl.example.com/h' });
        ok(res, [200, 201, 404]);
      },
    ],
    [
      2,
      'assign a volume key to several',
      async () => {
        const ids = (
          await t.db.query(`SELECT id FROM redemptions WHERE awaiting_license ORDER BY ${shuffled()} LIMIT 3`)
        ).map((r: { id: string }) => r.id);
        if (!ids.length) return;
        const res = await t
          .http()
          .post('/api/redemptions/bulk-assign-license')
          .set(auth)
          .send({ redemptionIds: ids, licenseKey: `VOL-${randomInt(3)}`, downloadLink: 'https://dl.example.com/v' });
        ok(res, [200, 201]);
      },
    ],
    [
      2,
      'fix pending e-mails (pool keys for redemptions waiting for one)',
      async () => ok(await t.http().post('/api/admin/fix-pending-emails').set(auth), [200, 201]),
    ],
    [
      2,
      'retention (a redemption moved 8 years back, then the retention run)',
      async () => {
        // Nothing in the application moves a redemption's day: the test's own move counts itself; the retention run
        // then deletes it.
        await moveRedemptions(
          t.db,
          `r.redeemed_at - interval '8 years'`,
          `r.id = (SELECT id FROM redemptions ORDER BY ${shuffled()} LIMIT 1)`,
        );
        await t.app.get(JobHandlers).runRetention();
      },
    ],
    [1, 'fold past days', () => t.app.get(StatsRepository).foldPastDays()],
    [0.4, 'Clean System', async () => ok(await t.http().delete('/api/admin/cleanup-redeemed').set(auth), [200])],
  ];
  const totalWeight = operations.reduce((sum, [w]) => sum + w, 0);
  const chooseOperation = () => {
    let r = random() * totalWeight;
    for (const op of operations) {
      r -= op[0];
      if (r < 0) return op;
    }
    return operations[0];
  };
  return { operations, chooseOperation };
}
