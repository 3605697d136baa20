import { ListRedemptionsQuery } from '../../backend/src/modules/redemption/dto/redemption-admin.dto';
import { RedemptionListRepository } from '../../backend/src/modules/redemption/redemption-list.repository';
import { RedemptionListService } from '../../backend/src/modules/redemption/redemption-list.service';
import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { productId, PRODUCTS } from '../helpers/factories';
import { insertBulkRedemptions, MediumDatabase, startMediumDatabase, statementsSent } from '../helpers/medium';

/**
 * The redemption list's search at a size where PostgreSQL's plans and estimates matter (docs/benchmarks.md, "lists"):
 * the statements RedemptionListService sends, their plans, the capped totals and the broad search's order, on
 * plain repositories over a DataSource. The route's own contract (shape, paging and filter validation, masking):
 * test/redemptions-list.e2e-spec.ts; the list module's paths on a small list: test/medium/list-rules.medium-spec.ts.
 */
describe('the redemption list at 30,000 redemptions (medium)', () => {
  let m: MediumDatabase;
  let mac: string;
  let service: RedemptionListService;

  beforeAll(async () => {
    // The capped-count test below works with an exact-count limit of 1,000.
    m = await startMediumDatabase({ LIST_EXACT_COUNT_LIMIT: '1000' });
    service = new RedemptionListService(new RedemptionListRepository(m.database, m.cipher), m.config);
    mac = await productId(m.db, PRODUCTS.homeBusinessMac);
    await insertBulkRedemptions(m.db, mac, 30000, 'bulk');
    // Codes written by SQL, not by an upload: their search entries are merged as an upload merges them.
    await new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database)).mergeSearchIndex();
    await m.db.query(`ANALYZE`);
  });
  afterAll(() => m?.close());
  afterEach(() => jest.restoreAllMocks());

  /** What GET /api/redemptions answers, from the service (the route adds only validation and masking). */
  const list = (query: Partial<ListRedemptionsQuery> = {}) => service.list(query as ListRedemptionsQuery);

  /** The statements the repository sends for `query`, captured from the connection, and the answer. */
  const sending = async (query: Partial<ListRedemptionsQuery>) => {
    const { result: found, sent } = await statementsSent(m.db, () => list(query));
    return { found, sent: sent.filter(({ sql }) => !/^\s*EXPLAIN/i.test(sql)) };
  };
  /** The plan of a captured statement, scans priced out (a plan check, not a timing: at this size PostgreSQL may
   * still prefer a scan; at a million rows it picks the indexes by itself). */
  const planOf = async ({ sql, params }: { sql: string; params: unknown[] }) => {
    const runner = m.db.createQueryRunner();
    try {
      await runner.startTransaction();
      await runner.query(`SET LOCAL enable_seqscan = off`);
      const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(`EXPLAIN ${sql}`, params);
      return plan.map((p) => p['QUERY PLAN']).join('\n');
    } finally {
      await runner.rollbackTransaction();
      await runner.release();
    }
  };

  /** The plan PostgreSQL itself picks for a captured statement (`EXPLAIN <options>`), as text. */
  const explain = async ({ sql, params }: { sql: string; params: unknown[] }, options = '') => {
    const plan: Array<{ 'QUERY PLAN': string }> = await m.db.query(`EXPLAIN ${options} ${sql}`, params);
    return plan.map((p) => p['QUERY PLAN']).join('\n');
  };
  /** `fn` with the planner's statistics of ten million rows on these tables' real pages; analysed again after. */
  const atTenMillionRows = async <T>(fn: () => Promise<T>): Promise<T> => {
    await m.db.query(
      `UPDATE pg_class SET reltuples = 10000000 WHERE relname IN ('redemptions', 'customers', 'voucher_codes')`,
    );
    try {
      return await fn();
    } finally {
      await m.db.query(`ANALYZE redemptions, customers, voucher_codes`);
    }
  };

  it('answers the start of a word from the b-trees and a term inside a word from the trigram indexes', async () => {
    // docs/product.md §11.12. One statement chooses the path; one collects the page's ids and the count.
    const cases: Array<[string, string[], string[]]> = [
      // "bulk12345@" starts an e-mail and no code or name: the e-mails' b-trees, no code probed
      ['bulk12345@', ['uq_customers_email', 'idx_customers_email_domain'], ['uq_voucher_codes_code']],
      // "ulk12345@" starts no e-mail, domain, name or code: inside a word.
      ['ulk12345@', ['idx_voucher_codes_code_trgm', 'idx_customers_email_trgm', 'idx_redemptions_full_name_trgm'], []],
    ];
    for (const [term, indexes, unread] of cases) {
      const { found, sent } = await sending({ search: term });
      expect(found.redemptions.map((r) => r.customer.email)).toEqual(['bulk12345@example.net']);
      expect(found.pagination).toMatchObject({ totalCount: 1, totalCountExact: true });
      expect(sent.filter(({ sql }) => /WHEN EXISTS/.test(sql))).toHaveLength(1);
      const searches = sent.filter(({ sql }) => /c3\.email I?LIKE/.test(sql));
      expect(searches).toHaveLength(1);
      expect(searches[0].sql).toMatch(/count\(\*\)[\s\S]*ARRAY\(SELECT id FROM m ORDER BY redeemed_at DESC, id/);
      const plan = await planOf(searches[0]);
      for (const index of indexes) expect([term, plan]).toEqual([term, expect.stringContaining(index)]);
      for (const index of unread) expect([term, plan]).toEqual([term, expect.not.stringContaining(index)]);
    }
  });

  it("tells a term no code starts with by one probe of the codes' b-tree, never reading codes in table order", async () => {
    // The path statement asks whether any code in the list starts with the term. It used to ask whether one contains
    // it: as one EXISTS over voucher_codes PostgreSQL took the trigram estimate's floor for the truth and read codes
    // in table order for the "first" match (6-8 s at ten million when none matched), then, asked of the trigram index,
    // tens of milliseconds per search. Now a range of the codes' unique index, planned as at ten million rows.
    const { found, sent } = await sending({ search: 'nowhere-xqzzy.test' });
    expect(found.redemptions).toEqual([]);
    expect(found.pagination).toMatchObject({ totalCount: 0, totalCountExact: true });
    const [path] = sent.filter(({ sql }) => /WHEN EXISTS/.test(sql));
    const text = await atTenMillionRows(() => explain(path));
    expect(text).toContain('uq_voucher_codes_code');
    expect(text).not.toContain('idx_voucher_codes_code_trgm');
    expect(text).not.toMatch(/Seq Scan on voucher_codes/);
    // A term many codes start with finds them; a part of codes that starts none of them, inside a word.
    for (const term of ['BULK-2', 'ULK-2']) {
      const broad = await list({ search: term, limit: 5 });
      expect([term, broad.redemptions]).toEqual([term, expect.any(Array)]);
      expect(broad.redemptions).toHaveLength(5);
      for (const r of broad.redemptions) expect(r.voucherCode.code).toContain('BULK-2');
    }
  });

  it("answers an exact code from the codes' unique index alone: no trigram index in either statement", async () => {
    const { found, sent } = await sending({ search: 'bulk-12345' });
    expect(found.redemptions.map((r) => r.voucherCode.code)).toEqual(['BULK-12345']);
    // The start of no other of these 30,000 codes (BULK-123450 and on would be listed too: they start with it).
    expect(found.pagination).toMatchObject({ totalCount: 1, totalCountExact: true });
    expect(sent.filter(({ sql }) => /idx_voucher_codes_code_trgm|ILIKE/.test(sql) && /code/.test(sql))).toEqual([]);
    for (const statement of sent.filter(({ sql }) => /WHEN EXISTS|v2\.code LIKE/.test(sql))) {
      const text = await explain(statement, '(ANALYZE, COSTS OFF)');
      expect(text).toContain('uq_voucher_codes_code');
      expect(text).not.toContain('idx_voucher_codes_code_trgm');
    }
  });

  it('reads a full name shared by thousands of customers in order from its index: one page, no sort', async () => {
    // 3,000 of the customers share one name (the name given with the redemption, docs/product.md §11.6).
    await m.db.query(`UPDATE redemptions SET first_name = 'Maria', last_name = 'Garcia' WHERE last_name ~ '0$'`);
    await m.db.query(`ANALYZE redemptions`);
    try {
      const { found, sent } = await sending({ search: 'maria GARCIA', limit: 50, page: 2 });
      const expected = await m.db.query(
        `SELECT id FROM redemptions WHERE NOT exported AND first_name = 'Maria' AND last_name = 'Garcia'
          ORDER BY redeemed_at DESC, id LIMIT 50 OFFSET 50`,
      );
      expect(found.redemptions.map((r) => r.id)).toEqual(expected.map((r: { id: string }) => r.id));
      expect(found.pagination).toMatchObject({ hasNextPage: true, totalCountExact: false });
      expect(found.pagination.totalCount).toBeGreaterThan(1000);
      // (The path statement, which reads the newest rows' codes, aside.)
      const pageOfIds = sent.filter(
        ({ sql }) => !/WHEN EXISTS/.test(sql) && /ORDER BY r\.redeemed_at DESC, r\.id LIMIT/.test(sql),
      );
      expect(pageOfIds).toHaveLength(1);
      const plan = await planOf(pageOfIds[0]);
      expect(plan).toContain('idx_redemptions_name_list');
      expect(plan).not.toMatch(/Sort/);
    } finally {
      // Back to the names the customers gave (each customer row kept them).
      await m.db.query(
        `UPDATE redemptions r SET first_name = c.first_name, last_name = c.last_name FROM customers c
          WHERE c.id = r.customer_id AND r.first_name = 'Maria'`,
      );
      await m.db.query(`ANALYZE redemptions`);
    }
  });

  it('counts exactly up to the limit (1,000 here) and estimates beyond; a broad search pages in list order', async () => {
    const expected = async (pattern: string, limit: number, offset: number) =>
      (
        await m.db.query(
          `SELECT r.id FROM redemptions r JOIN customers c ON c.id = r.customer_id
            WHERE NOT r.exported AND c.email ILIKE $1 ORDER BY r.redeemed_at DESC, r.id LIMIT $2 OFFSET $3`,
          [pattern, limit, offset],
        )
      ).map((r: { id: string }) => r.id);
    const all = await list({ limit: 20 });
    expect(all.pagination).toMatchObject({ totalCountExact: false, hasNextPage: true });
    expect(all.pagination.totalCount).toBeGreaterThan(1000);

    // "bulk" matches every one of them: the list is walked in order and the matches kept.
    for (const page of [1, 3]) {
      const broad = await list({ search: 'BULK', limit: 50, page });
      expect(broad.redemptions.map((r) => r.id)).toEqual(await expected('%bulk%', 50, (page - 1) * 50));
      expect(broad.pagination).toMatchObject({ currentPage: page, hasNextPage: true, totalCountExact: false });
      expect(broad.pagination.totalCount).toBeGreaterThan(1000);
    }
    // "bulk1": 11,111 matches, above the cap; "bulk123": 111 (bulk123, bulk1230…, bulk12300…), counted exactly.
    const some = await list({ search: 'bulk1', limit: 100, page: 2 });
    expect(some.redemptions.map((r) => r.id)).toEqual(await expected('%bulk1%', 100, 100));
    expect(some.pagination).toMatchObject({ hasNextPage: true, totalCountExact: false });
    const few = await list({ search: 'bulk123', limit: 100, page: 2 });
    expect(few.redemptions.map((r) => r.id)).toEqual(await expected('%bulk123%', 100, 100));
    expect(few.pagination).toMatchObject({
      totalCount: 111,
      totalPages: 2,
      hasNextPage: false,
      totalCountExact: true,
    });
  });

  it('walks a broad start of a word with the lookups of what it starts only: a domain reads no code, a code no e-mail', async () => {
    // docs/product.md §11.12: the path statement tells which of codes, e-mails and names the list holds starting with
    // the term; a walked row then looks up only those (a primary-key probe each). The same rows as the full test.
    const codeLookup = 'FROM voucher_codes v WHERE v.id = r.voucher_code_id';
    const emailLookup = 'FROM customers c WHERE c.id = r.customer_id';
    const cases: Array<[string, string, string, string]> = [
      // every customer's domain; no code or name starts with it
      ['example.net', `split_part(c.email, '@', 2) LIKE 'example.net%'`, emailLookup, codeLookup],
      // 11,111 codes (BULK-1, BULK-10…); no e-mail ("bulk1…") or name starts with "bulk-1"
      ['bulk-1', `v.code LIKE 'BULK-1%'`, codeLookup, emailLookup],
    ];
    for (const [term, test, read, notRead] of cases) {
      const { found, sent } = await sending({ search: term, limit: 50, page: 2 });
      const expected: Array<{ id: string }> = await m.db.query(
        `SELECT r.id FROM redemptions r JOIN customers c ON c.id = r.customer_id
           JOIN voucher_codes v ON v.id = r.voucher_code_id
          WHERE NOT r.exported AND ${test} ORDER BY r.redeemed_at DESC, r.id LIMIT 50 OFFSET 50`,
      );
      expect(found.redemptions.map((r) => r.id)).toEqual(expected.map((r) => r.id));
      expect(found.pagination).toMatchObject({ currentPage: 2, hasNextPage: true, totalCountExact: false });
      const walks = sent.filter(({ sql }) => /LIMIT (1000|5000)\)/.test(sql) && /CROSS JOIN LATERAL/.test(sql));
      // the page's walk and the walked count
      expect(walks).toHaveLength(2);
      for (const { sql } of walks) {
        expect([term, sql]).toEqual([term, expect.stringContaining(read)]);
        expect([term, sql]).toEqual([term, expect.not.stringContaining(notRead)]);
      }
    }
  });

  it('keeps an exact search narrow and exactly counted when PostgreSQL believes the tables hold ten million rows', async () => {
    // PostgreSQL never estimates a trigram pattern below about 1/10,000 of a table: at ten million redemptions an
    // exact code was expected to match about 2,000 rows, taken for a broad search, answered the slow way and given
    // that estimate as its total. The planner's statistics of ten million rows, on these tables' real pages:
    await atTenMillionRows(async () => {
      const [plan] = await m.db.query(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM voucher_codes WHERE code ILIKE '%BULK-12345%'`,
      );
      const planned = (typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN'])[0]
        .Plan;
      expect(planned['Plan Rows']).toBeGreaterThanOrEqual(500);

      const found = await list({ search: 'BULK-12345' });
      expect(found.redemptions.map((r) => r.voucherCode.code)).toEqual(['BULK-12345']);
      expect(found.pagination).toMatchObject({ totalCount: 1, totalCountExact: true });
    });
  });
});
