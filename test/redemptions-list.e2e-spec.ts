import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { addLicenseKey, productId, PRODUCTS } from './helpers/factories';
import { emailStatus, eventually, redeemNew } from './helpers/redemptions';
import { moveRedemptions } from './helpers/counted-sql';

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
        heldForReview: false,
        erasedAt: null,
        assignedLicenseKey: { licenseKey: 'KEYED-00001', downloadLink: 'https://dl.example.com/pp.exe' },
        // A Windows product: no licence package (docs/product.md §12.7).
        activationLink: null,
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

    it('finds a code by its start (the whole code is one) and, when no word starts with the term, by a part inside it', async () => {
      // docs/product.md §11.12: the start of a word first; inside a word only when nothing starts with the term.
      const [one, other] = [await codeOf(ids[1]), await codeOf(ids[2])];
      const found = async (search: string) =>
        (await list({ search })).redemptions.map((r: { id: string }) => r.id).sort();
      expect(await found(one.toLowerCase())).toEqual([ids[1]]);
      expect(await found(one.slice(0, 5))).toEqual([ids[1]]);
      expect(await found(one.slice(5))).toEqual([ids[1]]);
      const setCode = (id: string, code: string) =>
        t.db.query(
          `UPDATE voucher_codes SET code = $2 WHERE id = (SELECT voucher_code_id FROM redemptions WHERE id = $1)`,
          [id, code],
        );
      try {
        await setCode(ids[1], `PRECEDE-${one}`);
        await setCode(ids[2], `X-PRECEDE-${other}`);
        expect(await found('precede-')).toEqual([ids[1]]);
        expect(await found('recede-')).toEqual([ids[1], ids[2]].sort());
      } finally {
        await setCode(ids[1], one);
        await setCode(ids[2], other);
      }
    });

    async function codeOf(id: string): Promise<string> {
      const [row] = await t.db.query(
        `SELECT v.code FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE r.id = $1`,
        [id],
      );
      return row.code;
    }
  });

  // At 30,000 redemptions (plans, capped totals, broad searches): test/medium/redemption-list-at-scale.medium-spec.ts.
});
