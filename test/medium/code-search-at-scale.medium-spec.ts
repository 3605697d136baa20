import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { countedCodes } from '../helpers/counted-sql';
import { productId, PRODUCTS } from '../helpers/factories';
import {
  insertBulkRedemptions,
  MediumDatabase,
  planAtRows,
  startMediumDatabase,
  statementsSent,
} from '../helpers/medium';

/**
 * A product's codes searched for the start of thousands of another product's codes, which its own hardly hold
 * (docs/product.md §3.12; docs/benchmarks.md "A start only another product's codes have"): PostgreSQL's estimate of a
 * pattern ignores the product, so the search would look broad, walk the product's newest codes (no match there) and
 * read the rest in the list's order to the product's oldest code. The codes starting with it are of another product
 * only, so its matches are taken to be few: after the walk of the newest codes, collected through the code trigram
 * index, which leads with the product.
 */
describe("a product's codes searched for another product's codes (medium)", () => {
  let m: MediumDatabase;
  let codes: VoucherCodeRepository;
  let mac: string;
  let windows: string;

  beforeAll(async () => {
    m = await startMediumDatabase();
    codes = new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database));
    mac = await productId(m.db, PRODUCTS.homeBusinessMac);
    windows = await productId(m.db, PRODUCTS.homeBusinessWindows);
    const insert = (select: string, product: string) =>
      m.db.query(countedCodes(`INSERT INTO voucher_codes (code, product_id) ${select}`), [product]);
    // The Mac product's oldest code holds the term; 6,000 newer ones (more than a search walks) do not.
    await insert(`SELECT 'X-ADV-1', $1`, mac);
    await insert(`SELECT 'BEE-' || g, $1 FROM generate_series(1, 6000) g ORDER BY g`, mac);
    // A tenth of the Windows codes start with it (the benchmark's PROMO24- shape).
    await insert(
      `SELECT CASE WHEN g % 10 = 0 THEN 'ADV-' ELSE 'WIN-' END || g, $1 FROM generate_series(1, 30000) g ORDER BY g`,
      windows,
    );
    // Another start of Windows codes, which the Mac product's 200 newest codes hold inside.
    await insert(`SELECT 'ZED-' || g, $1 FROM generate_series(1, 3000) g ORDER BY g`, windows);
    await insert(`SELECT 'M-ZED-' || g, $1 FROM generate_series(1, 200) g ORDER BY g`, mac);
    // 8,000 redeemed Windows codes RED-1 … RED-8000, RED-1 the most recently redeemed; 800 codes of another product
    // start as 111 of them do.
    await insertBulkRedemptions(m.db, windows, 8000, 'red', { redeemed_at: `now() - g * interval '1 second'` });
    await insert(
      `SELECT 'RED-77-P' || g, $1 FROM generate_series(1, 800) g`,
      await productId(m.db, PRODUCTS.proPlusWindows),
    );
    await codes.mergeSearchIndex();
    await m.db.query('ANALYZE');
  });
  afterAll(() => m?.close());
  // The planner's statistics of ten million codes on the table's real pages, for the whole search.
  beforeEach(() => m.db.query(`UPDATE pg_class SET reltuples = 10000000 WHERE relname = 'voucher_codes'`));
  afterEach(() => m.db.query('ANALYZE voucher_codes'));

  it('finds the one Mac code holding a start 3,000 Windows codes have, counted exactly, through the product and the pattern', async () => {
    // PostgreSQL expects thousands of Mac codes to hold it (the search would look broad) ...
    const [estimated] = await m.db.query(
      `EXPLAIN (FORMAT JSON) SELECT 1 FROM voucher_codes v WHERE v.product_id = $1 AND v.code LIKE '%ADV-%'`,
      [mac],
    );
    expect(estimated['QUERY PLAN'][0].Plan['Plan Rows']).toBeGreaterThan(10_000);

    const { result, sent } = await statementsSent(m.db, () =>
      codes.page(mac, { search: 'adv-', offset: 0, limit: 50 }, 1000),
    );
    expect(result.rows.map((row) => row.code)).toEqual(['X-ADV-1']);
    expect(result).toMatchObject({ hasMore: false, counted: { count: 1, exact: true } });

    // ... its newest codes are walked (none there), then its codes are collected through the trigram index with the
    // product, not read in the list's order.
    const collect = sent.find(({ sql }) => /e AS MATERIALIZED/.test(sql));
    expect(collect).toBeDefined();
    const plan: Array<{ 'QUERY PLAN': string }> = await m.db.query(`EXPLAIN ${collect!.sql}`, collect!.params);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Bitmap Index Scan on idx_voucher_codes_code_trgm .*\n\s+Index Cond: \(\(product_id = /);
    expect(text).not.toContain('idx_voucher_codes_product_seq');
  });

  it("takes the page from the product's newest codes when they hold the term after all, without collecting", async () => {
    const { result, sent } = await statementsSent(m.db, () =>
      codes.page(mac, { search: 'zed-', offset: 0, limit: 50 }, 1000),
    );
    const newest = Array.from({ length: 50 }, (_, i) => `M-ZED-${200 - i}`);
    expect(result.rows.map((row) => row.code)).toEqual(newest);
    expect(result.hasMore).toBe(true);
    expect(sent.filter(({ sql }) => /e AS MATERIALIZED/.test(sql))).toEqual([]);
  });

  it('collects a start fewer than a thousand codes have by their ids, whatever PostgreSQL expects of the pattern', async () => {
    // RED-77, RED-770 … RED-779, RED-7700 … RED-7799: 111 of the redeemed list's 8,000 rows, 11 of them among the
    // newest 5,000, and 911 of all codes. PostgreSQL's estimate of the pattern is no guide to them: at ten million
    // codes it expected 50,183 matches of a start 111 codes have, and the search read the list in its order, 30 s
    // (docs/benchmarks.md "The codes stored as uploads store them"); planned from the pattern alone at ten million
    // rows, their collect joins every redemption of the product by hash.
    await m.db.query(`UPDATE pg_class SET reltuples = 10000000 WHERE relname = 'redemptions'`);
    const { result, sent } = await statementsSent(m.db, () =>
      codes.page(windows, { status: 'redeemed', search: 'red-77', offset: 0, limit: 50 }, 1000),
    ).finally(() => m.db.query('ANALYZE redemptions'));
    const matches = [
      77,
      ...Array.from({ length: 10 }, (_, i) => 770 + i),
      ...Array.from({ length: 100 }, (_, i) => 7700 + i),
    ];
    expect(result.rows.map((row) => row.code)).toEqual(matches.slice(0, 50).map((g) => `RED-${g}`));
    expect(result).toMatchObject({ hasMore: true, counted: { count: 111, exact: true } });

    // Not read in the list's order (no walk either): one statement collects them, the codes starting with the term
    // through the codes' unique b-tree, then their redemptions by code, with ten million codes and redemptions in the
    // planner's statistics.
    expect(sent.filter(({ sql }) => /ORDER BY v\.redeemed_at DESC, v\.id DESC LIMIT/.test(sql))).toEqual([]);
    const collects = sent.filter(({ sql }) => /e AS MATERIALIZED/.test(sql));
    expect(collects).toHaveLength(1);
    const plan = await planAtRows(m.db, collects[0], ['voucher_codes', 'redemptions']);
    expect(plan).toMatch(/Index Scan using uq_voucher_codes_code on voucher_codes/);
    expect(plan).toMatch(/Index Scan using uq_redemptions_voucher_code on redemptions/);
    expect(plan).not.toMatch(/idx_redemptions_product_redeemed|Hash Join|Seq Scan on redemptions/);
  });
});
