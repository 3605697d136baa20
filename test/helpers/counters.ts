import { pick, random, randomHex, randomInt } from './seed';
import { RetentionJob } from '../../backend/src/modules/retention/retention.job';
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
 * at a time while a checker compares, then compares the product list, the batches and the statistics with count(*).
 */

export { MISMATCHES_SQL } from './counters-mismatches';

export const OPERATIONS = 2000;
export const PARALLEL = 8;
/** The counters are checked against count(*) after every this many operations of the mix. */
export const CHECK_EVERY = 10;
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
 * The random mix on `products` (pool keys on the `licensed` ones): every operation with its weight, and a plan of
 * weighted random picks holding each at least once. A run throws on an answer it does not allow; `onRedeemed` is called for every redemption made.
 */
export function randomOperations(
  t: TestApp,
  auth: { Authorization: string },
  products: string[],
  licensed: string[],
  onRedeemed: () => void = () => undefined,
): { operations: Operation[]; plan: (count: number) => Operation[] } {
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
        if (ids.length) {
          ok(await t.http().post('/api/redemptions/bulk-delete').set(auth).send({ redemptionIds: ids }), [200, 201]);
        }
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
        if (row) {
          ok(
            await t.http().put(`/api/license-keys/${row.id}`).set(auth).send({ isActive: !row.is_active }),
            [200, 404],
          );
        }
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
        await t.app.get(RetentionJob).run();
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
  /**
   * `count` weighted picks in which every operation appears at least once, at a place drawn like the rest: a rare
   * operation (Clean System, weight 0.4 in 104) is missing from 2,000 plain picks once in about 2,000 runs.
   */
  const plan = (count: number): Operation[] => {
    const picks = Array.from({ length: count }, chooseOperation);
    const seen = new Map<Operation, number>();
    for (const op of picks) seen.set(op, (seen.get(op) ?? 0) + 1);
    for (const op of operations) {
      if (seen.has(op)) continue;
      // Replace a pick whose operation appears more than once, so no other operation goes missing.
      let at = randomInt(count);
      while (seen.get(picks[at])! < 2) at = (at + 1) % count;
      seen.set(picks[at], seen.get(picks[at])! - 1);
      picks[at] = op;
      seen.set(op, 1);
    }
    return picks;
  };
  return { operations, plan };
}
