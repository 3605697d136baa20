import { RedemptionRetentionRepository } from '../../backend/src/modules/redemption/redemption-retention.repository';
import { RedemptionRepository } from '../../backend/src/modules/redemption/redemption.repository';
import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { licenseManagedProduct } from '../helpers/factories';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';

/**
 * Migration 1763844000000 took the Redeemed tab's index off the code's row (docs/architecture.md "A code's state"): a
 * product's redeemed codes are read from its redemptions and, for those whose redemption was deleted, from
 * `released_codes`, newest first. Here 3,000 redemptions, some deleted one by one, in bulk and by
 * retention: the Redeemed tab still lists every redeemed code, in order, counted exactly, searchable; and, planned
 * with ten million rows' statistics, its page merges the two indexes read backwards: no sort, no scan of the codes.
 */
describe('the Redeemed tab without an index on the code (medium)', () => {
  const ROWS = 3000;
  let m: MediumDatabase;
  let product: string;
  let codes: VoucherCodeRepository;
  /** Code i (RDC-i) was redeemed i minutes ago. */
  const codeOf = (i: number) => `RDC-${i}`;
  const newestFirst = (from: number, n: number) => Array.from({ length: n }, (_, k) => codeOf(from + k));
  const redemptionOf = async (i: number): Promise<string> =>
    (
      await m.db.query(
        `SELECT r.id FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [codeOf(i)],
      )
    )[0].id;

  beforeAll(async () => {
    m = await startMediumDatabase();
    product = await licenseManagedProduct(m.db, 'Redeemed Tab');
    codes = new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database));
    await insertBulkRedemptions(m.db, product, ROWS, 'rdc', { redeemed_at: 'now() - make_interval(mins => g)' });
    // Deleted by an admin, one (code 2) and three at once (4, 5 and 1,500); older than two days by retention.
    const redemptions = new RedemptionRepository(m.database, m.cipher);
    expect(await redemptions.delete(await redemptionOf(2))).toEqual({ code: codeOf(2) });
    const bulk = [await redemptionOf(4), await redemptionOf(5), await redemptionOf(1500)];
    expect(await redemptions.deleteMany(bulk)).toHaveLength(3);
    const [{ n: due }] = await m.db.query(
      `SELECT count(*)::int AS n FROM redemptions WHERE redeemed_at < now() - interval '2 days'`,
    );
    expect(due).toBeGreaterThan(100);
    expect(await new RedemptionRetentionRepository(m.database).deleteOlderThan(2, 10_000)).toBe(due);
    await m.db.query(`ANALYZE`);
  });
  afterAll(() => m?.close());

  const redeemedPage = (offset: number, limit: number, search?: string) =>
    codes.page(product, { status: 'redeemed', offset, limit, search }, 100_000);

  it('lists every redeemed code newest first, those whose redemption was deleted too, counted exactly', async () => {
    const first = await redeemedPage(0, 10);
    expect(first.rows.map((r) => r.code)).toEqual(newestFirst(1, 10));
    expect(first.counted).toEqual({ count: ROWS, exact: true });
    expect(first.hasMore).toBe(true);
    const deleted = first.rows.filter((r) => !r.redemption_id).map((r) => r.code);
    expect(deleted).toEqual([codeOf(2), codeOf(4), codeOf(5)]);
    expect(first.rows.every((r) => r.status === 'redeemed' && r.is_redeemed)).toBe(true);
    // The oldest page: codes whose redemptions retention deleted, still in order.
    const last = await redeemedPage(ROWS - 5, 10);
    expect(last.rows.map((r) => r.code)).toEqual(newestFirst(ROWS - 4, 5));
    expect(last.rows.every((r) => r.redemption_id === null)).toBe(true);
    expect(last.hasMore).toBe(false);
  });

  it('finds a redeemed code by search, whether its redemption is there or deleted', async () => {
    // Codes that no other code contains: with their redemption (1,234), deleted by an admin (1,500), by retention.
    for (const i of [1234, 1500, ROWS - 1]) {
      const found = await redeemedPage(0, 10, codeOf(i));
      expect(found.rows.map((r) => r.code)).toEqual([codeOf(i)]);
      expect(found.counted).toEqual({ count: 1, exact: true });
    }
    // A broad search: the codes RDC-1… newest first, as the list reads them.
    const broad = await redeemedPage(0, 5, 'RDC-1');
    expect(broad.rows.map((r) => r.code)).toEqual([1, 10, 11, 12, 13].map(codeOf));
  });

  it('plans the page at ten million redemptions as a merge of the two indexes read backwards, no sort', async () => {
    const { sent } = await statementsSent(m.db, () => redeemedPage(0, 50));
    const ids = sent.find((s) => /UNION ALL/.test(s.sql) && /LIMIT/.test(s.sql) && !/count/.test(s.sql))!;
    const plan = await planAtRows(m.db, ids, ['redemptions', 'voucher_codes', 'idx_redemptions_product_redeemed']);
    expect(plan).toContain('Merge Append');
    expect(plan).toMatch(/Index Only Scan Backward using idx_redemptions_product_redeemed/);
    expect(plan).toMatch(/Index (Only )?Scan Backward using idx_released_codes_product/);
    expect(plan).not.toMatch(/Seq Scan|Sort\b(?! Key)|voucher_codes/);
  });
});
