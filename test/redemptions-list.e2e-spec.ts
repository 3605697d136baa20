import { VoucherCodeRepository } from '../backend/src/modules/voucher/voucher-code.repository';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addLicenseKey, productId, PRODUCTS } from './helpers/factories';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { countedCodes, countedRedemptions, moveRedemptions } from './helpers/counted-sql';

describe('GET /api/redemptions', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let mac: string;
  let proPlus: string;

  const list = async (query: Record<string, string | number | boolean> = {}) =>
    (await t.http().get('/api/redemptions').query(query).set(auth).expect(200)).body;

  /**
   * Each describe below reads the whole list, so each has a service (a database) of its own, started in its
   * beforeAll: what one writes never shows in another's totals, in whatever order they run.
   */
  const ownService = () => {
    beforeAll(async () => {
      t = await startTestApp({ LIST_EXACT_COUNT_LIMIT: '1000' }); // the capped-count test below works with 1,000
      auth = bearer(await tokenFor(t, 'admin'));
      mac = await productId(t.db, PRODUCTS.homeBusinessMac);
      proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    });
    afterAll(() => t.close());
  };

  describe('with nothing redeemed', () => {
    ownService();

    it('answers an empty page when there is nothing', async () => {
      expect(await list()).toEqual({
        redemptions: [],
        pagination: {
          currentPage: 1,
          limit: 50,
          totalCount: 0,
          totalPages: 0,
          hasPreviousPage: false,
          hasNextPage: false,
          totalCountExact: true,
        },
      });
    });
  });

  describe('with data', () => {
    ownService();
    const ids: string[] = [];
    let keyed: { id: string; code: string; email: string };

    beforeAll(async () => {
      // 10 Mac redemptions, newest first by index: ids[0] is the newest.
      for (let i = 0; i < 10; i++) {
        const r = await redeemNew(
          t,
          mac,
          { firstName: `Name${String.fromCharCode(65 + i)}`, lastName: 'Tester' },
          `LST${i}`,
        );
        ids.push(r.id);
      }
      for (let i = 0; i < ids.length; i++) {
        // Its order e-mail job settles first, so it cannot overwrite the status set here.
        await eventually(
          async () => (await emailStatus(t, ids[i])) !== 'pending',
          15_000,
          `e-mail of redemption ${i} settled`,
        );
        await moveRedemptions(
          t.db,
          `now() - make_interval(hours => $2)`,
          `r.id = $1`,
          [ids[i], i + 1, i % 3 === 0 ? 'failed' : 'sent'],
          `email_status = $3`,
        );
      }
      await addLicenseKey(t.db, proPlus, 'KEYED-00001', { downloadLink: 'https://dl.example.com/pp.exe' });
      keyed = await redeemNew(
        t,
        proPlus,
        { firstName: 'Ann', lastName: "O'Brien", email: 'ann.obrien@example.org' },
        'KEYED',
      );
      // (the `exported` counter is not kept here: nothing in this suite reads the batches' figures)
      await moveRedemptions(
        t.db,
        `now() - interval '1 day'`,
        `r.id = $1`,
        [keyed.id],
        `exported = true, exported_at = now()`,
      );
    });

    it('gives the list shape with customer, product and assigned key', async () => {
      const exported = await list({ showExported: true });
      expect(exported.redemptions).toHaveLength(1);
      expect(exported.redemptions[0]).toEqual({
        id: keyed.id,
        voucherCodeId: expect.any(String),
        customerId: expect.any(String),
        productId: proPlus,
        voucherCode: { id: expect.any(String), code: keyed.code },
        customer: {
          id: expect.any(String),
          firstName: 'Ann',
          lastName: "O'Brien",
          email: 'ann.obrien@example.org',
          phone: '+1 302 555 0100',
          country: null,
          zipCode: null,
        },
        product: { id: proPlus, name: PRODUCTS.proPlusWindows },
        emailStatus: expect.stringMatching(/^(pending|sent)$/),
        isManualProcessing: false,
        redeemedAt: expect.any(String),
        exported: true,
        exportedAt: expect.any(String),
        refundedAt: null,
        erasedAt: null,
        assignedLicenseKey: { licenseKey: 'KEYED-00001', downloadLink: 'https://dl.example.com/pp.exe' },
      });
      const recent = await list();
      expect(recent.redemptions.map((r: { id: string }) => r.id)).toEqual(ids);
      expect(recent.redemptions[0].assignedLicenseKey).toBeNull();
    });

    it('pages: exact multiple of the page size, last page, beyond the last page', async () => {
      const first = await list({ limit: 5, page: 1 });
      expect(first.redemptions.map((r: { id: string }) => r.id)).toEqual(ids.slice(0, 5));
      expect(first.pagination).toEqual({
        currentPage: 1,
        limit: 5,
        totalCount: 10,
        totalPages: 2,
        hasPreviousPage: false,
        hasNextPage: true,
        totalCountExact: true,
      });
      const last = await list({ limit: 5, page: 2 });
      expect(last.redemptions.map((r: { id: string }) => r.id)).toEqual(ids.slice(5));
      expect(last.pagination).toEqual(
        expect.objectContaining({ totalPages: 2, hasPreviousPage: true, hasNextPage: false }),
      );
      const partial = await list({ limit: 4, page: 3 });
      expect(partial.redemptions.map((r: { id: string }) => r.id)).toEqual(ids.slice(8));
      expect(partial.pagination).toEqual(expect.objectContaining({ totalPages: 3, hasNextPage: false }));
      const beyond = await list({ limit: 5, page: 3 });
      expect(beyond.redemptions).toEqual([]);
      expect(beyond.pagination).toEqual(
        expect.objectContaining({ currentPage: 3, totalCount: 10, hasNextPage: false }),
      );
    });

    it('refuses bad paging and filter values', async () => {
      for (const query of [
        { page: 0 },
        { page: '100000000000000000000' },
        { limit: 501 },
        { page: 'x' },
        { emailStatus: 'lost' },
        { showExported: 'maybe' },
      ]) {
        const res = await t.http().get('/api/redemptions').query(query).set(auth).expect(400);
        expect(typeof res.body.message).toBe('string');
      }
    });

    it('filters by e-mail status within the recent or exported view', async () => {
      const failed = await list({ emailStatus: 'failed' });
      expect(failed.redemptions.map((r: { id: string }) => r.id)).toEqual([ids[0], ids[3], ids[6], ids[9]]);
      expect(failed.pagination.totalCount).toBe(4);
      expect((await list({ emailStatus: 'sent' })).pagination.totalCount).toBe(6);
      expect((await list({ emailStatus: 'all' })).pagination.totalCount).toBe(10);
      expect((await list({ emailStatus: 'failed', showExported: true })).pagination.totalCount).toBe(0);
    });

    it('searches voucher code, customer name and e-mail, any case, trimmed', async () => {
      const byCode = await list({ search: ` ${(await codeOf(ids[4])).slice(0, 8).toLowerCase()} ` });
      expect(byCode.redemptions.map((r: { id: string }) => r.id)).toEqual([ids[4]]);
      const byFirst = await list({ search: 'namec' });
      expect(byFirst.redemptions.map((r: { id: string }) => r.id)).toEqual([ids[2]]);
      const byFull = await list({ search: 'NameD Tester' });
      expect(byFull.redemptions.map((r: { id: string }) => r.id)).toEqual([ids[3]]);
      expect((await list({ search: 'tester' })).pagination.totalCount).toBe(10);
      const byEmail = await list({ search: 'OBRIEN@EXAMPLE', showExported: true });
      expect(byEmail.redemptions.map((r: { id: string }) => r.id)).toEqual([keyed.id]);
      // LIKE wildcards are plain characters.
      expect((await list({ search: '%' })).pagination.totalCount).toBe(0);
      expect(
        (await list({ search: 'tester', emailStatus: 'failed', limit: 2, page: 2 })).redemptions.map(
          (r: { id: string }) => r.id,
        ),
      ).toEqual([ids[6], ids[9]]);
    });

    async function codeOf(id: string): Promise<string> {
      const [row] = await t.db.query(
        `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE r.id = $1`,
        [id],
      );
      return row.code;
    }
  });

  describe('at 30,000 redemptions', () => {
    ownService();
    beforeAll(async () => {
      const n = 30000;
      await t.db.query(
        `INSERT INTO customers (first_name, last_name, email)
        SELECT 'F' || g, 'L' || g, 'bulk' || g || '@example.net' FROM generate_series(1, $1::int) g`,
        [n],
      );
      await t.db.query(
        countedCodes(
          `INSERT INTO voucher_codes (code, product_id, is_redeemed) SELECT 'BULK-' || g, $1, true FROM generate_series(1, $2::int) g`,
        ),
        [mac, n],
      );
      await t.db.query(
        countedRedemptions(`INSERT INTO redemptions (voucher_code_id, customer_id, product_id, email_status, first_name, last_name)
         SELECT v.id, c.id, $1, 'sent', c.first_name, c.last_name FROM generate_series(1, $2::int) g
           JOIN voucher_codes v ON v.code = 'BULK-' || g JOIN customers c ON c.email = 'bulk' || g || '@example.net'`),
        [mac, n],
      );
      // Codes written by SQL, not by an upload: their search entries are merged as an upload merges them.
      await t.app.get(VoucherCodeRepository).mergeSearchIndex();
      await t.db.query(`ANALYZE`);
    });
    afterEach(() => jest.restoreAllMocks());

    it('answers a narrow search from the trigram indexes, in the statements the list really sends', async () => {
      // A plan check, not a timing. At this size PostgreSQL may still prefer a scan; with scans priced out it
      // must be able to answer every search branch from an index (at a million rows it picks them by itself).
      // The statements are the ones the repository sends for this request, captured from the connection.
      const sent: Array<{ sql: string; params: unknown[] }> = [];
      const query = t.db.query.bind(t.db);
      jest.spyOn(t.db, 'query').mockImplementation(((sql: string, params?: unknown[]) => {
        sent.push({ sql, params: params ?? [] });
        return query(sql, params);
      }) as typeof t.db.query);
      const found = await list({ search: 'bulk12345@' });
      jest.restoreAllMocks();
      expect(found.pagination.totalCount).toBe(1);

      // The statement that filters by the search through the indexes: one, answering the page of ids and its count.
      const searches = sent.filter(({ sql }) => /v2\.code ILIKE/.test(sql) && !/^\s*EXPLAIN/i.test(sql));
      expect(searches).toHaveLength(1);
      expect(searches[0].sql).toMatch(/count\(\*\)[\s\S]*ARRAY\(SELECT id FROM m ORDER BY redeemed_at DESC, id/);
      for (const { sql, params } of searches) {
        const runner = t.db.createQueryRunner();
        try {
          await runner.startTransaction();
          await runner.query(`SET LOCAL enable_seqscan = off`);
          const plan: Array<{ 'QUERY PLAN': string }> = await runner.query(`EXPLAIN ${sql}`, params);
          const text = plan.map((p) => p['QUERY PLAN']).join('\n');
          expect([sql, text]).toEqual([sql, expect.stringContaining('idx_voucher_codes_code_trgm')]);
          expect([sql, text]).toEqual([sql, expect.stringContaining('idx_customers_email_trgm')]);
          // The name searched is the redemption's own (docs/product.md §11.6).
          expect([sql, text]).toEqual([sql, expect.stringContaining('idx_redemptions_full_name_trgm')]);
        } finally {
          await runner.rollbackTransaction();
          await runner.release();
        }
      }
    });

    it('counts exactly up to the limit (1,000 here) and estimates beyond; a broad search pages in list order', async () => {
      const expected = async (pattern: string, limit: number, offset: number) =>
        (
          await t.db.query(
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
        expect(broad.redemptions.map((r: { id: string }) => r.id)).toEqual(
          await expected('%bulk%', 50, (page - 1) * 50),
        );
        expect(broad.pagination).toMatchObject({ currentPage: page, hasNextPage: true, totalCountExact: false });
        expect(broad.pagination.totalCount).toBeGreaterThan(1000);
      }
      // "bulk1": 11,111 matches, above the cap; "bulk123": 111 (bulk123, bulk1230…, bulk12300…), counted exactly.
      const some = await list({ search: 'bulk1', limit: 100, page: 2 });
      expect(some.redemptions.map((r: { id: string }) => r.id)).toEqual(await expected('%bulk1%', 100, 100));
      expect(some.pagination).toMatchObject({ hasNextPage: true, totalCountExact: false });
      const few = await list({ search: 'bulk123', limit: 100, page: 2 });
      expect(few.redemptions.map((r: { id: string }) => r.id)).toEqual(await expected('%bulk123%', 100, 100));
      expect(few.pagination).toMatchObject({
        totalCount: 111,
        totalPages: 2,
        hasNextPage: false,
        totalCountExact: true,
      });
    });

    it('keeps an exact search narrow and exactly counted when PostgreSQL believes the tables hold ten million rows', async () => {
      // PostgreSQL never estimates a trigram pattern below about 1/10,000 of a table: at ten million redemptions an
      // exact code was expected to match about 2,000 rows, taken for a broad search, answered the slow way and given
      // that estimate as its total. The planner's statistics of ten million rows, on these tables' real pages:
      await t.db.query(
        `UPDATE pg_class SET reltuples = 10000000 WHERE relname IN ('redemptions', 'customers', 'voucher_codes')`,
      );
      try {
        const [plan] = await t.db.query(
          `EXPLAIN (FORMAT JSON) SELECT 1 FROM voucher_codes WHERE code ILIKE '%BULK-12345%'`,
        );
        const planned = (
          typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN']
        )[0].Plan;
        expect(planned['Plan Rows']).toBeGreaterThanOrEqual(500);

        const found = await list({ search: 'BULK-12345' });
        expect(found.redemptions.map((r: { voucherCode: { code: string } }) => r.voucherCode.code)).toEqual([
          'BULK-12345',
        ]);
        expect(found.pagination).toMatchObject({ totalCount: 1, totalCountExact: true });
      } finally {
        await t.db.query(`ANALYZE redemptions, customers, voucher_codes`);
      }
    });
  });
});
