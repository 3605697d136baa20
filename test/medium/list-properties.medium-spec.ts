import fc from 'fast-check';
import { cappedTotal, collectedTotal, pagination, walkedTotal } from '../../backend/src/database/list/list-rules';
import { LicenseKeyAdminRepository } from '../../backend/src/modules/license/license-key-admin.repository';
import { LicenseRepository } from '../../backend/src/modules/license/license.repository';
import { RedemptionListRepository } from '../../backend/src/modules/redemption/redemption-list.repository';
import { UploadBatchRepository } from '../../backend/src/modules/voucher/upload-batch.repository';
import { VoucherCodeRepository } from '../../backend/src/modules/voucher/voucher-code.repository';
import { countedCodes, countedKeyUpdate, countedRedemptions } from '../helpers/counted-sql';
import { addLicenseKey, licenseManagedProduct } from '../helpers/factories';
import { MediumDatabase, startMediumDatabase } from '../helpers/medium';
import { checkProperty } from '../helpers/properties';

/** Every row of a list's answer, as the test sees it: its id. */
interface Page {
  ids: string[];
  hasNextPage: boolean;
  counted: { count: number; exact: boolean };
}

/** How a request pages: its size, the page its window starts at (modulo the pages there are), how many pages. */
const paging = fc.record({
  limit: fc.integer({ min: 1, max: 8 }),
  start: fc.nat(),
  pages: fc.integer({ min: 1, max: 3 }),
  // The list's exact-count limit: the default, or so small that most totals are estimates.
  exactLimit: fc.constantFrom(100_000, 3),
});
type Paging = typeof paging extends fc.Arbitrary<infer T> ? T : never;

/** Few distinct seconds: rows share their sort key with others, and ties are broken by id. */
const BASE = Date.parse('2026-03-01T12:00:00Z');
const at = (second: number) => new Date(BASE + second * 1000);
/** A term's text in any case. */
const anyCase = (term: string, upper: boolean) => (upper ? term.toUpperCase() : term.toLowerCase());
/** A comparator of rows by keys in turn, each ascending or descending. */
const byKeys =
  <T>(...keys: Array<[(row: T) => number | string, 'asc' | 'desc']>) =>
  (a: T, b: T) => {
    for (const [key, direction] of keys) {
      const [x, y] = [key(a), key(b)];
      if (x !== y) return (x < y ? -1 : 1) * (direction === 'desc' ? -1 : 1);
    }
    return 0;
  };

/** `rows` (codes with their state and redemption time) written by SQL as redeemed, void or available, counted. */
async function writeCodes(
  m: MediumDatabase,
  product: string,
  rows: Array<{ code: string; state: string; at: Date; emailStatus?: string; exported?: boolean }>,
) {
  await m.db.query(
    countedCodes(`INSERT INTO voucher_codes (code, product_id, is_redeemed, redeemed_at, voided_at)
       SELECT code, $1, state = 'redeemed', CASE WHEN state = 'redeemed' THEN at END,
              CASE WHEN state = 'void' THEN at END
         FROM unnest($2::text[], $3::text[], $4::timestamptz[]) WITH ORDINALITY AS s(code, state, at, i)
        ORDER BY i`),
    [product, rows.map((r) => r.code), rows.map((r) => r.state), rows.map((r) => r.at)],
  );
  const redeemed = rows.filter((r) => r.state === 'redeemed');
  await m.db.query(
    `INSERT INTO customers (first_name, last_name, email) SELECT 'Any', 'Buyer', 'z' || lower(code) || '@example.net'
       FROM unnest($1::text[]) code`,
    [redeemed.map((r) => r.code)],
  );
  // Each code redeemed when its redemption was, as the redemption statement writes them.
  await m.db.query(
    countedRedemptions(`INSERT INTO redemptions (voucher_code_id, customer_id, product_id, redeemed_at, email_status,
                                                 exported, first_name, last_name)
       SELECT v.id, c.id, $1, v.redeemed_at, s.status, s.exported, 'Any', 'Buyer'
         FROM unnest($2::text[], $3::text[], $4::bool[]) AS s(code, status, exported)
         JOIN voucher_codes v ON v.code = s.code JOIN customers c ON c.email = 'z' || lower(s.code) || '@example.net'`),
    [
      product,
      redeemed.map((r) => r.code),
      redeemed.map((r) => r.emailStatus ?? 'sent'),
      redeemed.map((r) => r.exported ?? false),
    ],
  );
}

/**
 * Issue 55 item 11: the list rules (backend/src/database/list) through the three lists that declare themselves to the
 * list module — redemptions, a product's codes, the licence pool — on data fast-check draws (rows sharing their sort
 * keys, every state, filter and search branch), with any page size, any starting page and both exact and estimated
 * totals: consecutive pages hold exactly the rows of the list's order, none skipped, none twice; `hasNextPage` is
 * true exactly before the last row; an exact total is the number of rows. The expected order is computed here from
 * the rows' columns (docs/product.md: redemptions newest first; codes newest first, redeemed ones most recently
 * redeemed first; keys available, partially used, fully used, newest first within each), not read from SQL.
 * Rows accumulate across runs (codes and keys per product of their run; the redemption list is every run's).
 */
describe('list pages never skip or repeat a row (medium, properties)', () => {
  let m: MediumDatabase;
  let run = 0;

  beforeAll(async () => {
    m = await startMediumDatabase();
  });
  afterAll(() => m?.close());

  /** Reads the window `p` of a list of `expected` ids in order and checks each page against it. */
  async function checkWindow(expected: string[], p: Paging, read: (limit: number, offset: number) => Promise<Page>) {
    const pages = Math.ceil(expected.length / p.limit);
    const first = p.start % (pages + 1);
    for (let page = first; page < first + p.pages; page++) {
      const offset = page * p.limit;
      const got = await read(p.limit, offset);
      expect({ page, ids: got.ids, hasNextPage: got.hasNextPage }).toEqual({
        page,
        ids: expected.slice(offset, offset + p.limit),
        hasNextPage: offset + p.limit < expected.length,
      });
      if (got.counted.exact) expect(got.counted.count).toBe(expected.length);
      else expect(got.counted.count).toBeGreaterThan(p.exactLimit);
      if (!got.hasNextPage) break;
    }
  }

  it('the totals and the pagination object never contradict what a page has seen', async () => {
    await checkProperty(
      fc.property(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 100 }),
        fc.nat({ max: 100 }),
        fc.boolean(),
        fc.record({ count: fc.nat({ max: 100_000 }), exact: fc.boolean() }),
        (page, limit, rows, hasNextPage, counted) => {
          // What a list can answer: a next page only after a full one.
          const onPage = Math.min(rows, limit);
          const next = hasNextPage && onPage === limit;
          const p = pagination(page, limit, onPage, next, counted);
          const seen = (page - 1) * limit + onPage + (next ? 1 : 0);
          expect(p.totalCount).toBe(counted.exact ? counted.count : Math.max(counted.count, seen));
          expect(p.totalPages).toBe(Math.ceil(p.totalCount / limit));
          expect([p.hasPreviousPage, p.hasNextPage, p.totalCountExact]).toEqual([page > 1, next, counted.exact]);
          if (!counted.exact && next) expect(p.totalPages).toBeGreaterThan(page);
        },
      ),
      500,
    );
    await checkProperty(
      fc.property(fc.nat({ max: 5000 }), fc.integer({ min: 1, max: 3000 }), fc.nat({ max: 100_000 }), (n, cap, est) => {
        // Exact exactly when every match was read within the cap; an estimate is always above the cap.
        for (const total of [collectedTotal(n, cap, est), cappedTotal(n, cap, est)]) {
          expect(total).toEqual(n <= cap ? { count: n, exact: true } : { count: Math.max(est, cap + 1), exact: false });
        }
      }),
      500,
    );
    await checkProperty(
      fc.property(
        fc.integer({ min: 1, max: 5000 }),
        fc.nat({ max: 5000 }),
        fc.integer({ min: 1, max: 5000 }),
        fc.nat({ max: 1_000_000 }),
        (rows, found, windowSize, listEstimate) => {
          // A walked search never counts fewer matches than it saw.
          const matches = Math.min(found, rows);
          expect(walkedTotal(rows, matches, windowSize, listEstimate, 1000).count).toBeGreaterThanOrEqual(matches);
        },
      ),
      500,
    );
  });

  it('the redemption list, under any filter and search', async () => {
    const redemptions = new RedemptionListRepository(m.database, m.cipher);
    const product = await licenseManagedProduct(m.db, 'Listed redemptions');
    const rows = fc.array(
      fc.record({
        body: fc.stringMatching(/^[0-9K-N]{2,5}$/),
        second: fc.integer({ min: 0, max: 4 }),
        emailStatus: fc.constantFrom('sent', 'pending', 'failed'),
        exported: fc.boolean(),
      }),
      { maxLength: 25 },
    );
    const request = fc.record({
      showExported: fc.boolean(),
      emailStatus: fc.option(fc.constantFrom('sent', 'pending', 'failed'), { nil: undefined }),
      // A search: the start (2 to 4 characters) of one of this run's codes, in any case.
      search: fc.option(fc.tuple(fc.nat(), fc.integer({ min: 2, max: 4 }), fc.boolean()), { nil: undefined }),
      paging,
    });
    await checkProperty(
      fc.asyncProperty(rows, request, async (drawn, req) => {
        // Codes start with Q (no e-mail, domain or name here starts with it): a term finds codes only.
        const tag = ++run;
        const codes = drawn.map((r, i) => `Q${tag}${r.body}-${i}`);
        await writeCodes(
          m,
          product,
          drawn.map((r, i) => ({ ...r, code: codes[i], state: 'redeemed', at: at(r.second) })),
        );
        const term =
          req.search && codes.length
            ? anyCase(codes[req.search[0] % codes.length].slice(0, req.search[1]), req.search[2])
            : undefined;
        const all: Array<{ id: string; at: Date; exported: boolean; status: string; code: string }> = await m.db.query(
          `SELECT r.id, r.redeemed_at AS at, r.exported, r.email_status AS status, v.code
             FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id`,
        );
        const expected = all
          .filter((r) => r.exported === req.showExported && (!req.emailStatus || r.status === req.emailStatus))
          .filter((r) => !term || r.code.startsWith(term.toUpperCase()))
          .sort(byKeys([(r) => r.at.getTime(), 'desc'], [(r) => r.id, 'asc']))
          .map((r) => r.id);
        await checkWindow(expected, req.paging, async (limit, offset) => {
          const got = await redemptions.page(
            { showExported: req.showExported, emailStatus: req.emailStatus, search: term },
            { limit, offset, exactLimit: req.paging.exactLimit },
          );
          return { ids: got.redemptions.map((r) => r.id), hasNextPage: got.hasNextPage, counted: got.counted };
        });
      }),
      30,
    );
  });

  it("a product's code list, under any status and search", async () => {
    const codeList = new VoucherCodeRepository(m.database, new UploadBatchRepository(m.database));
    const rows = fc.array(
      fc.record({
        body: fc.stringMatching(/^[0-9K-N]{2,5}$/),
        state: fc.constantFrom('available', 'redeemed', 'void'),
        second: fc.integer({ min: 0, max: 4 }),
      }),
      { minLength: 1, maxLength: 25 },
    );
    const request = fc.record({
      status: fc.option(fc.constantFrom('available' as const, 'redeemed' as const, 'void' as const), {
        nil: undefined,
      }),
      // A search: 1 to 4 characters from anywhere in one of the product's codes (a start or inside), in any case.
      search: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 4 }), fc.boolean()), { nil: undefined }),
      paging,
    });
    await checkProperty(
      fc.asyncProperty(rows, request, async (drawn, req) => {
        const product = await licenseManagedProduct(m.db, `Listed codes ${++run}`);
        const codes = drawn.map((r, i) => `C${run}${r.body}-${i}`);
        await writeCodes(
          m,
          product,
          drawn.map((r, i) => ({ code: codes[i], state: r.state, at: at(r.second) })),
        );
        const all: Array<{ id: string; code: string; seq: string; at: Date | null; state: string }> = await m.db.query(
          `SELECT v.id, v.code, v.seq::text AS seq, v.redeemed_at AS at,
                    CASE WHEN v.voided_at IS NOT NULL THEN 'void' WHEN v.is_redeemed THEN 'redeemed'
                         ELSE 'available' END AS state
               FROM voucher_codes v WHERE v.product_id = $1`,
          [product],
        );
        const listed = all.filter((r) => !req.status || r.state === req.status);
        let term: string | undefined;
        let found = listed;
        if (req.search) {
          const [which, from, length, upper] = req.search;
          const code = codes[which % codes.length];
          const start = from % code.length;
          term = anyCase(code.slice(start, start + length), upper);
          // docs/product.md §3.12: the codes starting with the term when any of the list's does, else those holding it.
          const t = term.toUpperCase();
          found = listed.some((r) => r.code.startsWith(t))
            ? listed.filter((r) => r.code.startsWith(t))
            : listed.filter((r) => r.code.includes(t));
        }
        // Redeemed codes: most recently redeemed first, then by id, largest first; the others newest first.
        const sorted = [...found].sort(
          req.status === 'redeemed'
            ? byKeys<(typeof all)[number]>([(r) => r.at!.getTime(), 'desc'], [(r) => r.id, 'desc'])
            : byKeys<(typeof all)[number]>([(r) => Number(r.seq), 'desc']),
        );
        const expected = sorted.map((r) => r.id);
        await checkWindow(expected, req.paging, async (limit, offset) => {
          const got = await codeList.page(
            product,
            { status: req.status, search: term, limit, offset },
            req.paging.exactLimit,
          );
          return { ids: got.rows.map((r) => r.id), hasNextPage: got.hasMore, counted: got.counted };
        });
      }),
      30,
    );
  });

  it('the licence pool, under any usage state and search', async () => {
    const pool = new LicenseKeyAdminRepository(m.database, m.cipher, new LicenseRepository(m.database, m.cipher));
    const keys = fc.array(
      fc.record({
        body: fc.stringMatching(/^[A-Z0-9]{8}$/),
        max: fc.integer({ min: 1, max: 3 }),
        used: fc.integer({ min: 0, max: 3 }),
        second: fc.integer({ min: 0, max: 4 }),
      }),
      { minLength: 1, maxLength: 15 },
    );
    const request = fc.record({
      status: fc.option(fc.constantFrom('available' as const, 'partially-used' as const, 'fully-used' as const), {
        nil: undefined,
      }),
      // A search: 1 to 3 of the clear last characters of one of the keys, in any case.
      search: fc.option(fc.tuple(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 3 }), fc.boolean()), { nil: undefined }),
      paging,
    });
    const RANKS = { available: 0, 'partially-used': 1, 'fully-used': 2 } as const;
    await checkProperty(
      fc.asyncProperty(keys, request, async (drawn, req) => {
        const product = await licenseManagedProduct(m.db, `Listed keys ${++run}`);
        const stored = [...new Set(drawn.map((k) => `K${run}-${k.body}`))];
        const made: Array<{ id: string; last: string; rank: number; at: Date }> = [];
        for (const [i, key] of stored.entries()) {
          const { max, used, second } = drawn[i];
          const current = Math.min(used, max);
          const id = await addLicenseKey(m.db, product, key, { maxActivations: max });
          await m.db.query(countedKeyUpdate('current_activations = $2, created_at = $3', 'k.id = $1'), [
            id,
            current,
            at(second),
          ]);
          made.push({ id, last: key.slice(-5), rank: current === 0 ? 0 : current < max ? 1 : 2, at: at(second) });
        }
        let term: string | undefined;
        if (req.search) {
          const [which, from, length, upper] = req.search;
          const last = made[which % made.length].last;
          const start = from % last.length;
          term = anyCase(last.slice(start, start + length), upper);
        }
        const expected = made
          .filter((k) => req.status === undefined || k.rank === RANKS[req.status])
          .filter((k) => !term || k.last.toUpperCase().includes(term.toUpperCase()))
          .sort(byKeys([(k) => k.rank, 'asc'], [(k) => k.at.getTime(), 'desc'], [(k) => k.id, 'desc']))
          .map((k) => k.id);
        await checkWindow(expected, req.paging, async (limit, offset) => {
          const got = await pool.list(
            { productId: product, status: req.status, search: term },
            { limit, offset, exactLimit: req.paging.exactLimit },
          );
          return { ids: got.keys.map((k) => k.id), hasNextPage: got.hasNextPage, counted: got.counted };
        });
      }),
      30,
    );
  });
});
