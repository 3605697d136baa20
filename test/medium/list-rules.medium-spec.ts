import { SEARCH_EXACT_COUNT_LIMIT } from '../../backend/src/database/list/list-rules';
import { estimateRows } from '../../backend/src/database/list/list-counts';
import { CustomerDataRepository } from '../../backend/src/modules/redemption/customer-data.repository';
import { RedemptionListRepository } from '../../backend/src/modules/redemption/redemption-list.repository';
import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { licenseManagedProduct } from '../helpers/factories';
import { MediumDatabase, startMediumDatabase } from '../helpers/medium';
import { randomHex } from '../helpers/seed';

/**
 * The list module (backend/src/database/list: readListPage's paths) through the two lists that declare themselves to
 * it, RedemptionListRepository and VoucherCodeRepository, on plain repositories over a DataSource (no Nest, no HTTP):
 * exact totals up to the cap and estimates beyond, a narrow search's collected matches, a broad search walking the
 * newest rows, matches in older rows found through the indexes, the search branches (code, e-mail, the
 * redemption's own name, an erased customer) and the search's paths (docs/product.md §11.12: a full name read in order,
 * the start of an e-mail or its domain, a term inside a word). The pure rules: backend/src/database/list/list-rules.spec.ts; the HTTP
 * contract (query validation, the pagination object): test/redemptions-list.e2e-spec.ts.
 *
 * Data: one product with ROWS codes, all redeemed by the same three customers, one redemption a minute back from now
 * (row i is i minutes old), written by SQL in one statement (lists only read; no counter is looked at here); the
 * oldest one's customer erased through CustomerDataRepository.erase.
 */
const ROWS = 3500;
/** One in SPARSE redemptions, the oldest, has a name of its own. */
const SPARSE = 200;

describe('the list module through the redemption and code lists (medium)', () => {
  let m: MediumDatabase;
  let product: string;
  let redemptions: RedemptionListRepository;
  let codes: VoucherCodeRepository;
  const tag = randomHex(3).toUpperCase();
  const codeOf = (i: number) => `LST-${tag}-${String(i).padStart(5, '0')}`;

  beforeAll(async () => {
    m = await startMediumDatabase();
    redemptions = new RedemptionListRepository(m.database, m.cipher);
    codes = new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database));
    product = await licenseManagedProduct(m.db, `Listed ${tag}`);
    // Row i: its code, redeemed i minutes ago by a customer of its own (one licence per product and e-mail): "common"
    // for most, "rare" for the SPARSE oldest, the very oldest's to be erased. One statement.
    await m.db.query(
      `WITH s AS MATERIALIZED (
         SELECT i, format('LST-%s-%s', $4::text, lpad(i::text, 5, '0')) AS code, now() - make_interval(mins => i) AS at,
                CASE WHEN i = $2 - 1 THEN 'gone.buyer@example.com'
                     WHEN i >= $2 - $3 THEN format('rare.buyer.%s@example.net', i)
                     ELSE format('common.buyer.%s@example.com', i) END AS email
           FROM generate_series(0, $2 - 1) i),
       v AS (INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at)
             SELECT code, $1, true, at FROM s ORDER BY i RETURNING id, code),
       c AS (INSERT INTO customers (first_name, last_name, email) SELECT 'Any', 'Buyer', email FROM s RETURNING id, email)
       INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, redeemed_at, first_name, last_name)
       SELECT v.id, c.id, $1, CASE WHEN s.i % 10 = 0 THEN 'failed' ELSE 'sent' END, s.at,
              CASE WHEN s.i >= $2 - $3 THEN 'Rarely' ELSE 'Often' END, 'Seen'
         FROM s JOIN v ON v.code = s.code JOIN c ON c.email = s.email`,
      [product, ROWS, SPARSE, tag],
    );
    const customers = new CustomerDataRepository(m.database, m.cipher);
    expect(await m.database.transaction(() => customers.erase('gone.buyer@example.com'))).toMatchObject({
      redemptionIds: [expect.any(String)],
    });
    await m.db.query(`ANALYZE voucher_codes, redemptions, customers`);
  });
  afterAll(() => m?.close());

  const page = (search: string | undefined, limit = 20, offset = 0, exactLimit = 100_000, emailStatus?: string) =>
    redemptions.page({ showExported: false, search, emailStatus }, { limit, offset, exactLimit });
  const codesOf = (p: Awaited<ReturnType<typeof page>>) => p.redemptions.map((r) => r.voucherCode.code);
  const range = (from: number, n: number) => Array.from({ length: n }, (_, k) => codeOf(from + k));

  it('a plain page: newest first, the exact total up to the cap', async () => {
    const first = await page(undefined, 20, 0);
    expect(codesOf(first)).toEqual(range(0, 20));
    expect(first).toMatchObject({ hasNextPage: true, counted: { count: ROWS, exact: true } });
    const last = await page(undefined, 20, ROWS - 10);
    expect(codesOf(last)).toEqual(range(ROWS - 10, 10));
    expect(last.hasNextPage).toBe(false);
  });

  it("beyond the list's cap the total is PostgreSQL's estimate, raised above the cap and marked inexact", async () => {
    const capped = await page(undefined, 20, 0, 500);
    const estimate = await estimateRows(m.db, `SELECT 1 FROM redemptions r WHERE r.exported = $1`, [false]);
    expect(capped.counted).toEqual({ count: Math.max(estimate, 501), exact: false });
    expect(codesOf(capped)).toEqual(range(0, 20));
    // A filter is counted the same way: every tenth redemption failed.
    expect((await page(undefined, 20, 0, 100_000, 'failed')).counted).toEqual({ count: ROWS / 10, exact: true });
  });

  it('a narrow search (one code) collects its matches: the row and an exact total', async () => {
    const hit = await page(codeOf(777).toLowerCase());
    expect(codesOf(hit)).toEqual([codeOf(777)]);
    expect(hit).toMatchObject({ hasNextPage: false, counted: { count: 1, exact: true } });
  });

  it('a search matching most rows walks the newest ones: the page in order, the total inexact beyond the search cap', async () => {
    expect(ROWS - SPARSE).toBeGreaterThan(SEARCH_EXACT_COUNT_LIMIT);
    const broad = await page('common.buyer', 20, 40);
    expect(codesOf(broad)).toEqual(range(40, 20));
    expect(broad.hasNextPage).toBe(true);
    expect(broad.counted.exact).toBe(false);
    expect(broad.counted.count).toBeGreaterThan(SEARCH_EXACT_COUNT_LIMIT);
  });

  it('matches only among the oldest rows (past the walk) are found through the indexes, by e-mail and by name', async () => {
    const byEmail = await page('@example.net', 50);
    expect(codesOf(byEmail)).toEqual(range(ROWS - SPARSE, 50));
    expect(byEmail).toMatchObject({ hasNextPage: true, counted: { count: SPARSE - 1, exact: true } });
    // The name given with each redemption ("Rarely Seen"), not the customer's; the erased one's is gone.
    const byName = await page('rarely seen', 10, SPARSE - 11);
    expect(codesOf(byName)).toEqual(range(ROWS - 11, 10));
    expect(byName).toMatchObject({ hasNextPage: false, counted: { count: SPARSE - 1, exact: true } });
  });

  it("an erased customer's redemption is found by its code, never by its old e-mail or name", async () => {
    const erased = codeOf(ROWS - 1);
    const byCode = await page(erased);
    expect(byCode.redemptions).toEqual([
      expect.objectContaining({
        voucherCode: expect.objectContaining({ code: erased }),
        customer: expect.objectContaining({ email: '', firstName: '', lastName: '' }),
        erasedAt: expect.any(Date),
      }),
    ]);
    expect((await page('gone.buyer')).counted).toEqual({ count: 0, exact: true });
  });

  /** The ids of the redemptions `where` selects (on `r` and its customer `c`), newest first, as the list orders them. */
  const newest = async (where: string, params: unknown[], limit: number, offset = 0) =>
    (
      await m.db.query(
        `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id
           LEFT JOIN customers c ON c.id = r.customer_id
          WHERE NOT r.exported AND ${where} ORDER BY r.redeemed_at DESC, r.id LIMIT ${limit} OFFSET ${offset}`,
        params,
      )
    ).map((r: { code: string }) => r.code);

  it('a full name shared by many customers: its newest page read in order, the total exact up to the cap', async () => {
    // "Often Seen": ROWS - SPARSE customers, more than the search's cap; read from idx_redemptions_name_list.
    const shared = await page('OFTEN seen', 20, 0);
    expect(codesOf(shared)).toEqual(range(0, 20));
    expect(shared.hasNextPage).toBe(true);
    expect(shared.counted.exact).toBe(false);
    expect(shared.counted.count).toBeGreaterThan(SEARCH_EXACT_COUNT_LIMIT);
    const deep = await page('Often Seen', 20, ROWS - SPARSE - 10);
    expect(codesOf(deep)).toEqual(range(ROWS - SPARSE - 10, 10));
    expect(deep.hasNextPage).toBe(false);
    // With the e-mail status filter (every tenth failed): the name's failed ones, counted exactly (330 ≤ the cap).
    const failed = await page('often seen', 20, 0, 100_000, 'failed');
    expect(codesOf(failed)).toEqual(Array.from({ length: 20 }, (_, k) => codeOf(k * 10)));
    expect(failed.counted).toEqual({ count: (ROWS - SPARSE) / 10, exact: true });
    // A name with the other one's start is not that name: "Often" alone is the start of a word (every "Often Seen").
    expect((await page('often', 5)).counted.count).toBeGreaterThan(SEARCH_EXACT_COUNT_LIMIT);
  });

  it('the start of an e-mail or of its domain is found through the b-trees, with the exact total', async () => {
    const byStart = await page('rare.buyer.34', 20);
    expect(codesOf(byStart)).toEqual(range(3400, 20));
    expect(byStart).toMatchObject({ hasNextPage: true, counted: { count: 99, exact: true } });
    const byDomain = await page('EXAMPLE.NET', 10, SPARSE - 11);
    expect(codesOf(byDomain)).toEqual(range(ROWS - 11, 10));
    expect(byDomain).toMatchObject({ hasNextPage: false, counted: { count: SPARSE - 1, exact: true } });
  });

  it('a term starting the code, e-mail and name of the same rows finds each row once, whichever of them the list holds', async () => {
    // docs/product.md §11.12: the path statement tells which of codes, e-mails and names the list holds starting with
    // the term, and the search tests those alone. Rows of their own (exported, another product: no other test reads
    // them), in three lists (by e-mail status) that hold all three, the code and the name, the e-mail and the name.
    const other = await licenseManagedProduct(m.db, `Overlaps ${tag}`);
    const term = `ovl${tag.toLowerCase()}`;
    const [K, E, N] = [term.toUpperCase(), term, `Ovl${tag}`];
    // code, e-mail, first name, e-mail status
    const rows = [
      [`${K}-1`, 'a1@x.org', 'Any', 'sent'],
      [`Q${tag}-2`, `${E}2@x.org`, 'Any', 'sent'],
      [`Q${tag}-3`, 'a3@x.org', N, 'sent'],
      [`${K}-4`, `${E}4@x.org`, N, 'sent'],
      [`${K}-5`, 'a5@x.org', N, 'sent'],
      [`${K}-6`, 'a6@x.org', N, 'failed'],
      [`${K}-7`, 'a7@x.org', 'Any', 'failed'],
      [`Q${tag}-8`, 'a8@x.org', 'Any', 'failed'],
      [`Q${tag}-9`, `${E}9@x.org`, N, 'pending'],
      [`Q${tag}-10`, 'a10@x.org', N, 'pending'],
    ];
    await m.db.query(
      `WITH s AS MATERIALIZED (SELECT * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[])
                                 WITH ORDINALITY AS s(code, email, first, status, i)),
       v AS (INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at)
             SELECT code, $1, true, now() - make_interval(secs => i) FROM s RETURNING id, code),
       c AS (INSERT INTO customers (first_name, last_name, email) SELECT first, 'Buyer', email FROM s RETURNING id, email)
       INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, redeemed_at, first_name,
                                last_name, exported, exported_at)
       SELECT v.id, c.id, $1, s.status, now() - make_interval(secs => s.i), s.first, 'Buyer', true, now()
         FROM s JOIN v ON v.code = s.code JOIN c ON c.email = s.email`,
      [other, ...[0, 1, 2, 3].map((k) => rows.map((row) => row[k]))],
    );
    const expected = (status: string) =>
      rows.filter(
        ([code, email, first, s]) => s === status && [code, email, first].some((t) => t.toLowerCase().startsWith(term)),
      );
    for (const [status, codes] of [
      ['sent', [`${K}-1`, `Q${tag}-2`, `Q${tag}-3`, `${K}-4`, `${K}-5`]],
      ['failed', [`${K}-6`, `${K}-7`]],
      ['pending', [`Q${tag}-9`, `Q${tag}-10`]],
    ] as const) {
      expect(expected(status).map(([code]) => code)).toEqual(codes);
      const found = await redemptions.page(
        { showExported: true, emailStatus: status, search: term.toUpperCase() },
        { limit: 20, offset: 0, exactLimit: 100_000 },
      );
      expect([status, codesOf(found)]).toEqual([status, codes]);
      expect(found.counted).toEqual({ count: codes.length, exact: true });
    }
  });

  it('a term that starts inside a word is still found, through the trigram indexes', async () => {
    // No e-mail, domain, name or code starts with "buyer.34": common.buyer.34, .340-.349 and rare.buyer.3400-.3498.
    const inside = await page('buyer.34', 20);
    expect(codesOf(inside)).toEqual(await newest(`c.email LIKE '%buyer.34%'`, [], 20));
    expect(inside).toMatchObject({ hasNextPage: true, counted: { count: 11 + 99, exact: true } });
    // A last name alone starts inside the full name: every "… Seen" but the erased one.
    const lastName = await page('seen', 20, 40);
    expect(codesOf(lastName)).toEqual(range(40, 20));
    expect(lastName.counted.exact).toBe(false);
  });

  it("the code list: a product's codes newest first, by status, and a code search through the trigram index", async () => {
    const newest = await codes.page(product, { offset: 0, limit: 5 }, 100_000);
    // Codes were inserted in one statement: the newest (highest seq) is the last generated.
    expect(newest.rows.map((r) => r.code)).toEqual(range(ROWS - 5, 5).reverse());
    expect(newest).toMatchObject({ hasMore: true, counted: { count: ROWS, exact: true } });
    expect((await codes.page(product, { offset: 0, limit: 5, status: 'available' }, 100_000)).counted).toEqual({
      count: 0,
      exact: true,
    });
    const found = await codes.page(product, { offset: 0, limit: 5, search: codeOf(42).slice(-7) }, 100_000);
    expect(found.rows.map((r) => [r.code, r.status, r.email])).toEqual([
      [codeOf(42), 'redeemed', 'common.buyer.42@example.com'],
    ]);
    const capped = await codes.page(product, { offset: 0, limit: 5, search: `LST-${tag}` }, 100_000);
    expect(capped.rows).toHaveLength(5);
    expect(capped.hasMore).toBe(true);
    expect(capped.counted.exact).toBe(false);
    expect(capped.counted.count).toBeGreaterThan(SEARCH_EXACT_COUNT_LIMIT);
  });
});
