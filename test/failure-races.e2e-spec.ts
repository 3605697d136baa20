import { Client } from 'pg';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes, addLicenseKey, licenseManagedProduct, randomCode, redeemBody } from './helpers/factories';
import { csvRows, newTag } from './helpers/exports';
import { expectNothingPartial } from './helpers/failures';
import { eventually } from './helpers/redemptions';

/**
 * Issue 27: two writers on the same rows at the same moment. A refund (void) racing a redemption of the same code:
 * one of them wins, the other sees it (a void code is never redeemed, a redemption that won is marked refunded and keeps
 * its key). Two admins exporting the same unexported redemptions at once: each row is in exactly one file and counted
 * exported once (docs/architecture.md "Upload batches", exports count themselves).
 */
describe('failure paths: races on the same rows', () => {
  jest.setTimeout(120_000);
  let t: TestApp;

  beforeAll(async () => {
    // A void holds one of the bulk connections (uploads, voids, exports): eight lined up at once need eight.
    // Each redemption on a pool connection of its own (no pipeline): `behindLock` lines requests up in PostgreSQL's
    // lock queue and counts them there, and a pipelined statement would wait behind another on its connection instead,
    // out of sight (the pipeline's own behaviour under a lock: test/medium/statement-pipeline.medium-spec.ts).
    t = await startTestApp({ GEO_BLOCKED_COUNTRIES: '', DB_BULK_CONNECTIONS: '10', DB_PIPELINE_CONNECTIONS: '0' });
  });
  afterAll(() => t?.close());

  /**
   * Lines racing requests up: `sql` locks the rows they want in a transaction of the test's own; each step starts its
   * requests and waits until they queue behind that lock (in that order: PostgreSQL hands a row lock to its waiters in
   * turn); then the lock goes and they run. Answers every request's answer, in step order.
   */
  async function behindLock<T>(
    sql: string,
    params: unknown[],
    steps: Array<() => Array<PromiseLike<T>>>,
  ): Promise<T[]> {
    const locker = new Client({ connectionString: t.database.url });
    await locker.connect();
    // (Not on the locker: inside a transaction pg_stat_activity is read once and kept.)
    const waiting = async () =>
      (
        await t.db.query(
          `SELECT count(*)::int AS n FROM pg_stat_activity
            WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`,
        )
      )[0].n as number;
    const started: Array<PromiseLike<T>> = [];
    try {
      await locker.query('BEGIN');
      await locker.query(sql, params);
      for (const step of steps) {
        const requests = step();
        // A supertest request starts when it is awaited (then): start each now.
        started.push(...requests.map((r) => Promise.resolve(r)));
        await eventually(async () => (await waiting()) >= started.length, 30_000, `${started.length} requests queued`);
      }
      await locker.query('COMMIT');
      return await Promise.all(started);
    } finally {
      await locker.end();
    }
  }

  it('a void racing the redemption of the same code: exactly one wins, and the other answer says so', async () => {
    const operator = bearer(await tokenFor(t, 'operator'));
    const product = await licenseManagedProduct(t.db, `Race ${randomCode('P')}`);
    const ROUNDS = 30;
    for (let i = 0; i < ROUNDS; i++) await addLicenseKey(t.db, product, `RACE-${randomCode('K')}`);
    const codes = await addCodes(
      t.db,
      product,
      Array.from({ length: ROUNDS }, () => randomCode('RACE')),
    );
    const redeem = (code: string) =>
      t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }));
    const voidCode = (code: string) =>
      t
        .http()
        .post(`/api/products/${product}/voucher-codes/void`)
        .set(operator)
        .send({ codes: [code] });
    // First free play: both requests of each code at once.
    const free = codes.slice(8);
    const freeAnswers = await Promise.all(free.flatMap((code) => [redeem(code), voidCode(code)]));
    // Then lined up: for four codes the void reaches the code's row first, for four the redemption does.
    const voidFirst = codes.slice(0, 4);
    const redeemFirst = codes.slice(4, 8);
    const lined = await behindLock(
      `SELECT 1 FROM voucher_codes WHERE code = ANY($1) FOR UPDATE`,
      [codes.slice(0, 8)],
      [
        () => [...voidFirst.map(voidCode), ...redeemFirst.map(redeem)],
        () => [...voidFirst.map(redeem), ...redeemFirst.map(voidCode)],
      ],
    );
    const answers = new Map<string, { redeem: number; voided: number; refunded: number }>();
    const note = (code: string, redeemRes: { status: number }, voidRes: { status: number; body: any }) => {
      expect(voidRes.status).toBe(200);
      answers.set(code, {
        redeem: redeemRes.status,
        voided: voidRes.body.voided,
        refunded: voidRes.body.refundedAfterRedemption.length,
      });
    };
    free.forEach((code, i) => note(code, freeAnswers[2 * i], freeAnswers[2 * i + 1]));
    voidFirst.forEach((code, i) => note(code, lined[8 + i], lined[i]));
    redeemFirst.forEach((code, i) => note(code, lined[4 + i], lined[12 + i]));
    const outcomes = codes.map((code) => ({ code, ...answers.get(code)! }));
    // The lined-up ones: whoever reached the row first won.
    for (const code of voidFirst) expect(answers.get(code)!.redeem).toBe(410);
    for (const code of redeemFirst) expect(answers.get(code)!.redeem).toBe(201);
    const rows: Array<{
      code: string;
      is_redeemed: boolean;
      void: boolean;
      redemptions: number;
      refunded: boolean;
      keys: number;
    }> = await t.db.query(
      `SELECT v.code, v.is_redeemed, v.voided_at IS NOT NULL AS void,
                (SELECT count(*)::int FROM redemptions r WHERE r.voucher_code_id = v.id) AS redemptions,
                coalesce((SELECT r.refunded_at IS NOT NULL FROM redemptions r WHERE r.voucher_code_id = v.id), false) AS refunded,
                (SELECT count(*)::int FROM license_assignments a JOIN redemptions r ON r.id = a.redemption_id
                  WHERE r.voucher_code_id = v.id) AS keys
           FROM voucher_codes v WHERE v.code = ANY($1)`,
      [codes],
    );
    for (const o of outcomes) {
      const row = rows.find((r) => r.code === o.code)!;
      if (o.redeem === 201) {
        // The redemption won: the void found it redeemed and marked it refunded; the customer keeps the key.
        expect([o.voided, o.refunded]).toEqual([0, 1]);
        expect(row).toMatchObject({ is_redeemed: true, void: false, redemptions: 1, refunded: true, keys: 1 });
      } else {
        // The void won: the redemption got the void code's 410 and wrote nothing, took no key.
        expect(o.redeem).toBe(410);
        expect([o.voided, o.refunded]).toEqual([1, 0]);
        expect(row).toMatchObject({ is_redeemed: false, void: true, redemptions: 0, keys: 0 });
      }
    }
    const [{ used }] = await t.db.query(
      `SELECT count(*)::int AS used FROM license_keys WHERE product_id = $1 AND current_activations > 0`,
      [product],
    );
    expect(used).toBe(outcomes.filter((o) => o.redeem === 201).length);
    await expectNothingPartial(t.db);
  });

  it('two admins exporting the same unexported redemptions at once: each row in exactly one file, counted once', async () => {
    const [first, second] = [bearer(await tokenFor(t, 'admin')), bearer(await tokenFor(t, 'admin'))];
    const product = await licenseManagedProduct(t.db, `Export race ${randomCode('P')}`);
    const tag = newTag();
    const ROWS = 40;
    for (let i = 0; i < ROWS; i++) await addLicenseKey(t.db, product, `EXR-${randomCode('K')}`);
    const codes = await addCodes(
      t.db,
      product,
      Array.from({ length: ROWS }, () => randomCode('EXR')),
    );
    for (const [i, code] of codes.entries()) {
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code, email: `c${i}@${tag}.example.com` }))
        .expect(201);
    }
    const exportAs = (auth: { Authorization: string }) =>
      t
        .http()
        .get('/api/export/redeemed-vouchers')
        .query({ format: 'csv', search: `@${tag}.` })
        .set(auth);
    // Both exports reach the marking statement while the rows are locked, then run together.
    const files = await behindLock(
      `SELECT 1 FROM redemptions WHERE product_id = $1 FOR UPDATE`,
      [product],
      [() => [exportAs(first), exportAs(second)]],
    );
    const exportedCodes = files.map((res) => {
      if (res.status === 404) return []; // the other export had taken every row
      expect(res.status).toBe(200);
      return csvRows(res.text)
        .slice(1)
        .map((row) => row[0]);
    });
    // Together the two files hold every row once.
    expect([...exportedCodes[0], ...exportedCodes[1]].sort()).toEqual([...codes].sort());
    const [{ exported, counted }] = await t.db.query(
      `SELECT (SELECT count(*)::int FROM redemptions WHERE product_id = $1 AND exported) AS exported,
              (SELECT sum(exported)::int FROM product_counts WHERE product_id = $1) AS counted`,
      [product],
    );
    expect({ exported, counted }).toEqual({ exported: ROWS, counted: ROWS });
    // Nothing left to export.
    expect((await exportAs(first)).status).toBe(404);
    await expectNothingPartial(t.db);
  });
});
