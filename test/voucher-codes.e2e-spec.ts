import { startTestApp, TestApp } from './helpers/app';
import { createProduct, redeem } from './helpers/admin-data';
import { bearer, tokenFor } from './helpers/auth';
import { addCodes } from './helpers/factories';
import { countedCodes } from './helpers/counted-sql';

const seq = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(4, '0')}`);

describe('voucher codes of a product: list, search, delete', () => {
  let t: TestApp;
  let auth: { Authorization: string };

  beforeAll(async () => {
    t = await startTestApp({ LIST_EXACT_COUNT_LIMIT: '1000' }); // the capped-count test below works with 1,000
    auth = bearer(await tokenFor(t, 'admin'));
  });
  afterAll(() => t.close());

  const list = (product: string, query: Record<string, string | number>) =>
    t.http().get(`/api/products/${product}/voucher-codes-detailed`).set(auth).query(query);

  describe('GET /api/products/:id/voucher-codes-detailed', () => {
    it('answers an empty page for a product without codes', async () => {
      const product = await createProduct(t, auth);
      const res = await list(product, { limit: 50, offset: 0 }).expect(200);
      expect(res.body).toEqual({
        codes: [],
        pagination: {
          currentPage: 1,
          limit: 50,
          totalCount: 0,
          totalPages: 0,
          hasPreviousPage: false,
          hasNextPage: false,
          totalCountExact: true,
        },
        totalCount: 0,
        hasMore: false,
        totalCountExact: true,
      });
    });

    it('pages an exact multiple of the page size and a short last page, newest first', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, seq('OLD', 40));
      await addCodes(t.db, product, seq('NEW', 60));

      const first = await list(product, { limit: 50, offset: 0 }).expect(200);
      expect(first.body.totalCount).toBe(100);
      expect(first.body.hasMore).toBe(true);
      expect(first.body.codes).toHaveLength(50);
      // The later batch comes first, each batch newest-inserted first.
      expect(first.body.codes[0].code).toBe('NEW-0059');
      expect(first.body.codes[0]).toEqual({
        id: expect.any(String),
        code: 'NEW-0059',
        isRedeemed: false,
        status: 'available',
        createdAt: expect.any(String),
        redeemedAt: null,
        voidedAt: null,
        redemption: null,
      });

      const second = await list(product, { limit: 50, offset: 50 }).expect(200);
      expect(second.body.hasMore).toBe(false);
      expect(second.body.codes).toHaveLength(50);
      expect(second.body.codes.at(-1).code).toBe('OLD-0000');
      const all = [...first.body.codes, ...second.body.codes].map((c: { code: string }) => c.code);
      expect(new Set(all).size).toBe(100);

      const past = await list(product, { limit: 50, offset: 100 }).expect(200);
      expect(past.body).toMatchObject({ codes: [], totalCount: 100, hasMore: false, totalCountExact: true });

      // The admin lists' one contract: page numbers and the pagination object, the same pages as the offsets.
      const page2 = await list(product, { limit: 50, page: 2 }).expect(200);
      expect(page2.body.codes).toEqual(second.body.codes);
      expect(page2.body.pagination).toEqual({
        currentPage: 2,
        limit: 50,
        totalCount: 100,
        totalPages: 2,
        hasPreviousPage: true,
        hasNextPage: false,
        totalCountExact: true,
      });

      const last = await list(product, { limit: 30, offset: 90 }).expect(200);
      expect(last.body.codes.map((c: { code: string }) => c.code)).toEqual(seq('OLD', 10).reverse());
      expect(last.body.hasMore).toBe(false);
    });

    it('filters redeemed and unredeemed codes; redeemed ones carry redemption and customer', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, ['RF-A', 'RF-B', 'RF-C']);
      await redeem(t, 'RF-B', { firstName: 'Rita', lastName: 'Redeemer', email: 'rita@example.com' });

      const redeemed = await list(product, { redeemedOnly: 'true' }).expect(200);
      expect(redeemed.body.totalCount).toBe(1);
      expect(redeemed.body.codes[0]).toEqual({
        id: expect.any(String),
        code: 'RF-B',
        isRedeemed: true,
        status: 'redeemed',
        createdAt: expect.any(String),
        redeemedAt: expect.any(String),
        voidedAt: null,
        redemption: {
          id: expect.any(String),
          redeemedAt: expect.any(String),
          refundedAt: null,
          erasedAt: null,
          emailStatus: expect.stringMatching(/^(pending|sent|failed)$/),
          customer: { id: expect.any(String), firstName: 'Rita', lastName: 'Redeemer', email: 'rita@example.com' },
        },
      });

      const unredeemed = await list(product, { redeemedOnly: 'false' }).expect(200);
      expect(unredeemed.body.codes.map((c: { code: string }) => c.code)).toEqual(['RF-C', 'RF-A']);
      const all = await list(product, {}).expect(200);
      expect(all.body.totalCount).toBe(3);
    });

    it('counts exactly up to the limit (1,000 here) and estimates beyond; a broad search pages newest first', async () => {
      const product = await createProduct(t, auth);
      await t.db.query(
        countedCodes(
          `INSERT INTO voucher_codes (code, product_id) SELECT 'MANY-' || g, $1 FROM generate_series(1, 30000) g ORDER BY g`,
        ),
        [product],
      );
      await t.db.query('ANALYZE voucher_codes');
      const expected = async (pattern: string, limit: number, offset: number) =>
        (
          await t.db.query(
            `SELECT code FROM voucher_codes WHERE product_id = $1 AND code ILIKE $2 ORDER BY seq DESC LIMIT $3 OFFSET $4`,
            [product, pattern, limit, offset],
          )
        ).map((r: { code: string }) => r.code);

      const all = await list(product, { limit: 50, offset: 0 }).expect(200);
      expect(all.body).toMatchObject({ hasMore: true, totalCountExact: false });
      expect(all.body.totalCount).toBeGreaterThan(1000);
      // "many-1" matches 11,111 codes: the list is walked newest first and the matches kept.
      const broad = await list(product, { search: 'many-1', limit: 50, offset: 100 }).expect(200);
      expect(broad.body.codes.map((c: { code: string }) => c.code)).toEqual(await expected('%many-1%', 50, 100));
      expect(broad.body).toMatchObject({ hasMore: true, totalCountExact: false });
      // "many-123" matches 111 codes: counted exactly.
      const narrow = await list(product, { search: 'many-123', limit: 100, offset: 100 }).expect(200);
      expect(narrow.body.codes.map((c: { code: string }) => c.code)).toEqual(await expected('%many-123%', 100, 100));
      expect(narrow.body).toMatchObject({ totalCount: 111, hasMore: false, totalCountExact: true });
    });

    it('keeps an exact code search narrow and exactly counted when PostgreSQL believes the product holds tens of millions of codes', async () => {
      // The redemption list's ten-million-row rule (test/redemptions-list.e2e-spec.ts), now the voucher-code list's
      // too: PostgreSQL never estimates a pattern below about 1/10,000 of a table, so at tens of millions of codes in a
      // product an exact code looked broad (over 2,000 expected matches) and was given that estimate as its total. The
      // planner's statistics of a hundred million codes, on this table's real pages (codes of one width: none holds
      // another):
      const product = await createProduct(t, auth);
      await t.db.query(
        countedCodes(
          `INSERT INTO voucher_codes (code, product_id)
           SELECT 'TEN-' || lpad(g::text, 5, '0'), $1 FROM generate_series(1, 30000) g ORDER BY g`,
        ),
        [product],
      );
      await t.db.query('ANALYZE voucher_codes');
      // Two codes: one the ANALYZE never saw (estimated at the floor), and one of the column's ~100 histogram bounds,
      // which PostgreSQL estimates at 1% of the table (one bound of ~100 matching: it failed once so, by chance).
      const [{ bounds }] = await t.db.query(
        `SELECT histogram_bounds::text::text[] AS bounds FROM pg_stats
          WHERE tablename = 'voucher_codes' AND attname = 'code'`,
      );
      // Not the first or last bound (the column's ends, which PostgreSQL estimates differently): one in the middle.
      const ours = (bounds as string[]).slice(1, -1).filter((code) => /^TEN-\d{5}$/.test(code));
      const bound = ours[Math.floor(ours.length / 2)];
      expect(bound).toBeDefined();
      await t.db.query(countedCodes(`INSERT INTO voucher_codes (code, product_id) VALUES ('TEN-LATE-12345', $1)`), [
        product,
      ]);
      await t.db.query(`UPDATE pg_class SET reltuples = 100000000 WHERE relname = 'voucher_codes'`);
      try {
        for (const code of ['TEN-LATE-12345', bound as string]) {
          for (const pattern of [`%${code}%`, `${code}%`]) {
            const [plan] = await t.db.query(
              `EXPLAIN (FORMAT JSON) SELECT 1 FROM voucher_codes v WHERE v.product_id = $1 AND v.code LIKE $2`,
              [product, pattern],
            );
            const planned = (
              typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN']
            )[0].Plan;
            // Above what a search may count exactly (the old rule answered it with this estimate); the bound's, 1% of
            // the table, even looks broad (over a thousandth of the list).
            if (code === bound) expect(planned['Plan Rows']).toBeGreaterThan(100_000);
            else if (pattern.startsWith('%')) expect(planned['Plan Rows']).toBeGreaterThan(2000);
          }
          const found = await list(product, { search: code.toLowerCase() }).expect(200);
          expect(found.body.codes.map((c: { code: string }) => c.code)).toEqual([code]);
          expect(found.body).toMatchObject({ totalCount: 1, hasMore: false, totalCountExact: true });
          expect(found.body.pagination).toMatchObject({ totalCount: 1, totalPages: 1, totalCountExact: true });
        }
      } finally {
        await t.db.query('ANALYZE voucher_codes');
      }
    });

    it('searches case-insensitively for part of a code, treating _ and % literally', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, ['SRCH_ONE-1', 'SRCHXONE-2', 'OTHER-3', 'SRCH_ONE-4']);
      const res = await list(product, { search: '  h_one ' }).expect(200);
      expect(res.body.codes.map((c: { code: string }) => c.code)).toEqual(['SRCH_ONE-4', 'SRCH_ONE-1']);
      expect(res.body.totalCount).toBe(2);
      const paged = await list(product, { search: 'srch', limit: 2, offset: 0 }).expect(200);
      expect(paged.body).toMatchObject({ totalCount: 3, hasMore: true });
      const none = await list(product, { search: '%' }).expect(200);
      expect(none.body.totalCount).toBe(0);
    });

    it('tells whether the tab has a code starting with the term from the first 1,000 such codes only, past them lists the codes containing it', async () => {
      // Codes of another product come first in the codes' order; past 1,000 of them the probe reads no further (a
      // prefix shared by a million codes of other products costs it 1,000 index entries) and the search lists the
      // codes containing the term.
      const [other, product] = [await createProduct(t, auth), await createProduct(t, auth)];
      const otherCodes = (from: number, to: number) =>
        t.db.query(
          countedCodes(
            `INSERT INTO voucher_codes (code, product_id)
             SELECT 'PBX-' || lpad(g::text, 4, '0'), $1 FROM generate_series($2::int, $3::int) g`,
          ),
          [other, from, to],
        );
      await otherCodes(1, 999);
      await addCodes(t.db, product, ['PBX-9999', 'Z-PBX-1']);
      const starting = await list(product, { search: 'pbx-' }).expect(200);
      expect(starting.body.codes.map((c: { code: string }) => c.code)).toEqual(['PBX-9999']);
      await otherCodes(1000, 1000);
      const containing = await list(product, { search: 'pbx-' }).expect(200);
      expect(containing.body.codes.map((c: { code: string }) => c.code)).toEqual(['Z-PBX-1', 'PBX-9999']);
    });

    it('finds the codes that start with the term when any does, else those containing it (docs/product.md §3.12)', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, ['STARTX-1', 'A-STARTX-2', 'B-STARTX-3']);
      const starting = await list(product, { search: 'startx' }).expect(200);
      expect(starting.body.codes.map((c: { code: string }) => c.code)).toEqual(['STARTX-1']);
      expect(starting.body).toMatchObject({ totalCount: 1, totalCountExact: true });
      const inside = await list(product, { search: '-startx' }).expect(200);
      expect(inside.body.codes.map((c: { code: string }) => c.code)).toEqual(['B-STARTX-3', 'A-STARTX-2']);
      // Per tab: a code starting with the term on another tab does not hide the codes containing it on this one.
      await redeem(t, 'B-STARTX-3');
      const redeemed = await list(product, { search: 'startx', redeemedOnly: 'true' }).expect(200);
      expect(redeemed.body.codes.map((c: { code: string }) => c.code)).toEqual(['B-STARTX-3']);
      const unredeemed = await list(product, { search: 'startx', redeemedOnly: 'false' }).expect(200);
      expect(unredeemed.body.codes.map((c: { code: string }) => c.code)).toEqual(['STARTX-1']);
    });

    it('refuses bad query values and unknown products', async () => {
      const product = await createProduct(t, auth);
      expect((await list(product, { limit: 0 }).expect(400)).body.message).toBe('limit must be at least 1');
      expect((await list(product, { offset: -1 }).expect(400)).body.message).toBe('offset must be 0 or more');
      expect((await list(product, { redeemedOnly: 'yes' }).expect(400)).body.message).toBe(
        'redeemedOnly must be true or false',
      );
      const unknown = await list('00000000-0000-4000-8000-000000000000', {}).expect(404);
      expect(unknown.body.message).toBe('Product not found.');
      expect((await list('abc', {}).expect(400)).body.message).toBe('Invalid product ID.');
    });
  });

  describe('deleting codes', () => {
    const idOf = async (code: string): Promise<string> =>
      (await t.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [code]))[0].id;
    const exists = async (code: string): Promise<boolean> =>
      (await t.db.query(`SELECT 1 FROM voucher_codes WHERE code = $1`, [code])).length === 1;

    it('DELETE /api/voucher-codes/:id deletes an unredeemed code and refuses a redeemed one', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, ['DEL-ONE', 'DEL-USED']);
      await redeem(t, 'DEL-USED');

      const ok = await t
        .http()
        .delete(`/api/voucher-codes/${await idOf('DEL-ONE')}`)
        .set(auth)
        .expect(200);
      expect(ok.body).toEqual({ message: 'Voucher code deleted successfully.' });
      expect(await exists('DEL-ONE')).toBe(false);

      const used = await t
        .http()
        .delete(`/api/voucher-codes/${await idOf('DEL-USED')}`)
        .set(auth)
        .expect(409);
      expect(used.body.message).toBe('Redeemed voucher codes cannot be deleted.');
      expect(await exists('DEL-USED')).toBe(true);

      const gone = await t
        .http()
        .delete('/api/voucher-codes/00000000-0000-4000-8000-000000000000')
        .set(auth)
        .expect(404);
      expect(gone.body.message).toBe('Voucher code not found.');

      const [audit] = await t.db.query(
        `SELECT success, details FROM security_audit_log WHERE action = 'vouchers.delete' AND success ORDER BY created_at LIMIT 1`,
      );
      expect(audit.details).toMatchObject({ code: 'DEL-ONE', productId: product });
    });

    it('deletes selected codes of the product only, never redeemed ones', async () => {
      const product = await createProduct(t, auth);
      const other = await createProduct(t, auth);
      await addCodes(t.db, product, ['SEL-1', 'SEL-2', 'SEL-3', 'SEL-USED']);
      await addCodes(t.db, other, ['SEL-OTHER']);
      await redeem(t, 'SEL-USED');
      const ids = await Promise.all(['SEL-1', 'SEL-2', 'SEL-USED', 'SEL-OTHER'].map(idOf));

      const res = await t
        .http()
        .delete(`/api/products/${product}/voucher-codes`)
        .set(auth)
        .send({ deleteType: 'selected', voucherCodeIds: ids })
        .expect(200);
      expect(res.body).toEqual({
        message: '2 voucher codes deleted. 2 redeemed, void or unknown code(s) were kept.',
        deletedCount: 2,
        skippedCount: 2,
      });
      expect(await exists('SEL-1')).toBe(false);
      expect(await exists('SEL-2')).toBe(false);
      expect(await exists('SEL-3')).toBe(true);
      expect(await exists('SEL-USED')).toBe(true);
      expect(await exists('SEL-OTHER')).toBe(true);
    });

    it('deletes all unredeemed codes of the product and keeps redeemed ones and other products', async () => {
      const product = await createProduct(t, auth);
      const other = await createProduct(t, auth);
      await addCodes(t.db, product, seq('ALLU', 25));
      await addCodes(t.db, product, ['ALLU-USED']);
      await addCodes(t.db, other, ['ALLU-OTHER']);
      await redeem(t, 'ALLU-USED');

      const res = await t
        .http()
        .delete(`/api/products/${product}/voucher-codes`)
        .set(auth)
        .send({ deleteType: 'all-unredeemed' })
        .expect(200);
      expect(res.body).toMatchObject({ deletedCount: 25, skippedCount: 0 });
      const left = await t.db.query(`SELECT code FROM voucher_codes WHERE product_id = $1`, [product]);
      expect(left).toEqual([{ code: 'ALLU-USED' }]);
      expect(await exists('ALLU-OTHER')).toBe(true);
    });

    it('refuses a bulk delete without a valid type or selection, deleting nothing', async () => {
      const product = await createProduct(t, auth);
      await addCodes(t.db, product, ['KEEP-1']);
      const del = (body: object) => t.http().delete(`/api/products/${product}/voucher-codes`).set(auth).send(body);
      expect((await del({ deleteType: 'everything' }).expect(400)).body.message).toBe(
        'deleteType must be selected or all-unredeemed',
      );
      expect((await del({ deleteType: 'selected' }).expect(400)).body.message).toBe(
        'Select at least one voucher code to delete.',
      );
      expect((await del({ deleteType: 'selected', voucherCodeIds: [] }).expect(400)).body.message).toBe(
        'Select at least one voucher code to delete.',
      );
      expect((await del({ deleteType: 'selected', voucherCodeIds: ['nope'] }).expect(400)).body.message).toBe(
        'Invalid voucher code ID.',
      );
      expect(await exists('KEEP-1')).toBe(true);
    });
  });
});
