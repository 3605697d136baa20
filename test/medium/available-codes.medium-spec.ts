import { REDEEM_SQL, successTokenHash } from '../../backend/src/modules/redemption/redemption.repository';
import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { addCodes, licenseManagedProduct } from '../helpers/factories';
import { MediumDatabase, planAtRows, startMediumDatabase, statementsSent } from '../helpers/medium';

/**
 * Migration 1763845000000 took the last index on the code's state off `voucher_codes` (docs/architecture.md "A code's
 * state"): a product's available codes are listed in `available_codes`, which the redemption, a code's delete and the
 * upload keep in their own statements. Here: the redemption's update of its code is heap-only (it writes no index of
 * `voucher_codes`) and takes the code off the list; the Unredeemed tab lists what is available, newest first, counted
 * exactly and searchable; planned with ten million codes' statistics, its page's ids come from the list's primary key
 * alone.
 */
describe('the Unredeemed tab without an index on the code (medium)', () => {
  const ROWS = 2000;
  let m: MediumDatabase;
  let codes: VoucherCodeRepository;
  let products = 0;

  beforeAll(async () => {
    m = await startMediumDatabase();
    codes = new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database));
  });
  afterAll(() => m?.close());

  /** A product of its own with ROWS codes: code i (`<P>-i`) the i-th inserted, the newest `<P>-2000`. */
  const productWithCodes = async () => {
    const tag = `AV${++products}`;
    const product = await licenseManagedProduct(m.db, `Unredeemed Tab ${tag}`);
    const codeOf = (i: number) => `${tag}-${i}`;
    await addCodes(
      m.db,
      product,
      Array.from({ length: ROWS }, (_, k) => codeOf(k + 1)),
    );
    await m.db.query(`ANALYZE voucher_codes, available_codes`);
    return {
      product,
      codeOf,
      newestFirst: (from: number, n: number) => Array.from({ length: n }, (_, k) => codeOf(from - k)),
      idOf: async (i: number): Promise<string> =>
        (await m.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [codeOf(i)]))[0].id,
      page: (offset: number, limit: number, search?: string) =>
        codes.page(product, { status: 'available', offset, limit, search }, 100_000),
    };
  };

  it('redeems with a heap-only update of the code, which leaves the list of available codes', async () => {
    const p = await productWithCodes();
    const runner = m.db.createQueryRunner();
    try {
      await runner.startTransaction();
      const [redeemed] = await runner.query(REDEEM_SQL, [
        p.codeOf(ROWS),
        'Ann',
        'Lee',
        'ann.available@example.com',
        null,
        '198.51.100.7',
        null,
        successTokenHash('available-token'),
        72,
        null,
        false,
        null,
      ]);
      expect(redeemed).toMatchObject({ product_id: p.product });
      // This transaction's own statistics: one update of voucher_codes, heap-only (no index entry written).
      const [stat] = await runner.query(
        `SELECT n_tup_upd::int AS updated, n_tup_hot_upd::int AS hot FROM pg_stat_xact_user_tables WHERE relname = 'voucher_codes'`,
      );
      expect(stat).toEqual({ updated: 1, hot: 1 });
      await runner.commitTransaction();
    } finally {
      await runner.release();
    }
    const first = await p.page(0, 5);
    expect(first.rows.map((r) => r.code)).toEqual(p.newestFirst(ROWS - 1, 5));
    expect(first.counted).toEqual({ count: ROWS - 1, exact: true });
    expect((await p.page(0, 10, p.codeOf(ROWS))).rows).toEqual([]);
  });

  it('lists what the deletes leave, newest first, counted exactly, the oldest page too', async () => {
    const p = await productWithCodes();
    expect(await codes.deleteUnredeemed(await p.idOf(ROWS))).toEqual({ code: p.codeOf(ROWS), productId: p.product });
    expect(await codes.deleteUnredeemedOfProduct(p.product, [await p.idOf(ROWS - 2), await p.idOf(1)])).toBe(2);
    const first = await p.page(0, 3);
    expect(first.rows.map((r) => r.code)).toEqual([p.codeOf(ROWS - 1), p.codeOf(ROWS - 3), p.codeOf(ROWS - 4)]);
    expect(first.rows.every((r) => r.status === 'available' && !r.redemption_id)).toBe(true);
    expect(first.counted).toEqual({ count: ROWS - 3, exact: true });
    const last = await p.page(ROWS - 5, 10);
    expect(last.rows.map((r) => r.code)).toEqual([p.codeOf(3), p.codeOf(2)]);
    expect(last.hasMore).toBe(false);
    expect((await p.page(0, 10, p.codeOf(ROWS - 2))).rows).toEqual([]);
  });

  it('finds an available code by search, narrow or broad', async () => {
    const p = await productWithCodes();
    const found = await p.page(0, 10, p.codeOf(1234));
    expect(found.rows.map((r) => r.code)).toEqual([p.codeOf(1234)]);
    expect(found.counted).toEqual({ count: 1, exact: true });
    // A broad search: <P>-1… newest first, as the list reads them.
    const broad = await p.page(0, 3, p.codeOf(1));
    expect(broad.rows.map((r) => r.code)).toEqual(p.newestFirst(1999, 3));
  });

  it('deletes every available code of the product through the list, and lists none after', async () => {
    const p = await productWithCodes();
    await codes.deleteUnredeemed(await p.idOf(5));
    expect(await codes.deleteUnredeemedOfProduct(p.product)).toBe(ROWS - 1);
    expect((await p.page(0, 10)).counted).toEqual({ count: 0, exact: true });
    const [{ n }] = await m.db.query(`SELECT count(*)::int AS n FROM voucher_codes WHERE product_id = $1`, [p.product]);
    expect(n).toBe(0);
  });

  it('plans the page at ten million codes as the list key read backwards, index only: no sort, no code read', async () => {
    const p = await productWithCodes();
    const { sent } = await statementsSent(m.db, () => p.page(0, 50));
    const ids = sent.find((s) => /available_codes/.test(s.sql) && /LIMIT/.test(s.sql))!;
    const plan = await planAtRows(m.db, ids, ['available_codes', 'available_codes_pkey', 'voucher_codes']);
    expect(plan).toMatch(/Index Only Scan Backward using available_codes_pkey/);
    expect(plan).not.toMatch(/Seq Scan|Sort\b(?! Key)|voucher_codes/);
  });
});
