import { startTestApp, TestApp } from './helpers/app';
import { bearer, tokenFor } from './helpers/auth';
import { sealedKeyColumns } from '../backend/src/modules/license/license.repository';
import { addCodes, addLicenseKey, productId, PRODUCTS, randomCode, redeemBody, testCiphers } from './helpers/factories';
import { countedKeyUpdate, countedKeys } from './helpers/counted-sql';
import { eventually } from './helpers/redemptions';

describe('Licence pool API', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let proPlus: string;
  let homeWin: string;
  let mac: string;

  beforeAll(async () => {
    t = await startTestApp();
    auth = bearer(await tokenFor(t, 'admin'));
    proPlus = await productId(t.db, PRODUCTS.proPlusWindows);
    homeWin = await productId(t.db, PRODUCTS.homeBusinessWindows);
    mac = await productId(t.db, PRODUCTS.homeBusinessMac);
  });
  afterAll(() => t.close());

  const create = (body: Record<string, unknown>) => t.http().post('/api/license-keys').set(auth).send(body);
  const valid = (over: Record<string, unknown> = {}) => ({
    productId: homeWin,
    licenseKey: 'ABCDE-11111',
    downloadLink: 'https://dl.example.com/hb.exe',
    licenseType: 'single-user',
    ...over,
  });

  it('lists the licence-managed products only', async () => {
    // Other tests add licence-managed products of their own; a product delivered by link never shows.
    const [byLink] = await t.db.query(
      `INSERT INTO products (name, is_license_managed) VALUES ('By Link Only (Mac)', false) RETURNING id`,
    );
    const res = await t.http().get('/api/license-managed-products').set(auth).expect(200);
    const names: string[] = res.body.map((p: { name: string }) => p.name);
    expect(names).toEqual(expect.arrayContaining([PRODUCTS.homeBusinessWindows, PRODUCTS.proPlusWindows]));
    expect(names).not.toContain(PRODUCTS.homeBusinessMac);
    expect(res.body.map((p: { id: string }) => p.id)).not.toContain(byLink.id);
    const managed = await t.db.query(`SELECT name FROM products WHERE is_license_managed ORDER BY name`);
    expect([...names].sort()).toEqual(managed.map((p: { name: string }) => p.name));
    for (const product of res.body) {
      expect(product).toEqual(expect.objectContaining({ id: expect.any(String), isLicenseManaged: true }));
    }
  });

  it('creates a key trimmed and upper-cased, single-user with one activation', async () => {
    const res = await create(valid({ licenseKey: '  abcde-22222-xyz ', maxActivations: 40 })).expect(201);
    expect(res.body).toEqual(
      expect.objectContaining({
        productId: homeWin,
        productName: PRODUCTS.homeBusinessWindows,
        licenseKey: 'ABCDE-22222-XYZ',
        licenseType: 'single-user',
        maxActivations: 1,
        currentActivations: 0,
        isActive: true,
        usageStatus: 'available',
      }),
    );
    const [audit] = await t.db.query(
      `SELECT action, success, resource_id FROM security_audit_log WHERE action = 'license-key.create' AND resource_id = $1`,
      [res.body.id],
    );
    expect(audit).toEqual({ action: 'license-key.create', success: true, resource_id: res.body.id });
  });

  it.each([
    [{ productId: undefined }, 'Product is required'],
    [{ licenseKey: 'ABCD' }, 'License key must be at least 5 characters'],
    [{ licenseKey: 'A'.repeat(30) }, 'License key must be at most 29 characters'],
    [{ licenseKey: 'ABCDE_12345' }, 'License key must contain only uppercase letters, numbers, and hyphens'],
    [{ downloadLink: '   ' }, 'Download link is required'],
    [{ downloadLink: 'not a url' }, 'Must be a valid URL'],
    [{ downloadLink: 'http://dl.example.com/x.exe' }, 'Must be an HTTPS URL'],
    [{ licenseType: 'site' }, 'License type is required'],
    [{ licenseType: 'volume' }, 'Volume licenses must have at least 2 activations'],
    [{ licenseType: 'volume', maxActivations: 1 }, 'Volume licenses must have at least 2 activations'],
    [{ licenseType: 'volume', maxActivations: 1000 }, 'Volume licenses can have at most 999 activations'],
  ])('refuses %j with "%s" and writes nothing', async (over, message) => {
    const before = await t.db.query(`SELECT count(*)::int AS n FROM license_keys`);
    const res = await create(valid({ licenseKey: 'NEVER-STORED', ...over })).expect(400);
    expect(res.body.message).toBe(message);
    expect(await t.db.query(`SELECT count(*)::int AS n FROM license_keys`)).toEqual(before);
  });

  it('refuses a duplicate key of the same product with 409, but takes it for another product', async () => {
    await create(valid({ licenseKey: 'DUPLI-00001' })).expect(201);
    const dup = await create(valid({ licenseKey: 'dupli-00001 ' })).expect(409);
    expect(dup.body).toEqual({
      statusCode: 409,
      message: 'This license key already exists for this product',
      error: 'Conflict',
    });
    await create(valid({ licenseKey: 'DUPLI-00001', productId: proPlus })).expect(201);
  });

  it('refuses keys for a product that is not licence-managed, and unknown products', async () => {
    const res = await create(valid({ productId: mac })).expect(400);
    expect(res.body.message).toBe('License keys can only be added to license-managed products');
    await create(valid({ productId: '00000000-0000-4000-8000-000000000000' })).expect(404);
  });

  it('creates volume keys with their activations', async () => {
    const res = await create(valid({ licenseKey: 'VOLUM-00001', licenseType: 'volume', maxActivations: 25 })).expect(
      201,
    );
    expect(res.body).toEqual(expect.objectContaining({ licenseType: 'volume', maxActivations: 25 }));
  });

  describe('list', () => {
    let product: string;
    beforeAll(async () => {
      // A product of its own, so the list holds exactly the keys of this block.
      const [row] = await t.db.query(
        `INSERT INTO products (name, is_license_managed, download_link) VALUES ('List Test (Windows)', true, 'https://x.example.com') RETURNING id`,
      );
      product = row.id;
      const add = async (key: string, max: number, used: number, minutesAgo: number, active = true) => {
        const id = await addLicenseKey(t.db, product, key, { maxActivations: max, active });
        await t.db.query(
          countedKeyUpdate(`current_activations = $2, created_at = now() - make_interval(mins => $3)`, `k.id = $1`),
          [id, used, minutesAgo],
        );
      };
      await add('FULL-OLD01', 1, 1, 50);
      await add('AVAIL-OLD1', 1, 0, 40);
      await add('PART-NEW01', 5, 2, 5);
      await add('FULL-NEW01', 3, 3, 1);
      await add('AVAIL-NEW1', 1, 0, 2, false);
      await add('PART-OLD01', 5, 4, 30);
      await add(`MANUAL_SOMEKEY`, 1, 1, 0);
    });

    it('orders available, partially used, fully used, newest first within, and hides MANUAL_ keys', async () => {
      const res = await t.http().get('/api/license-keys').query({ productId: product }).set(auth).expect(200);
      expect(res.body.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual([
        'AVAIL-NEW1',
        'AVAIL-OLD1',
        'PART-NEW01',
        'PART-OLD01',
        'FULL-NEW01',
        'FULL-OLD01',
      ]);
      expect(res.body.licenseKeys.map((k: { usageStatus: string }) => k.usageStatus)).toEqual([
        'available',
        'available',
        'partially-used',
        'partially-used',
        'fully-used',
        'fully-used',
      ]);
      expect(res.body.summary).toEqual({ totalKeys: 6, active: 5, available: 2, partiallyUsed: 2, fullyUsed: 2 });
      expect(res.body.pagination).toEqual({
        currentPage: 1,
        limit: 100,
        totalCount: 6,
        totalPages: 1,
        hasPreviousPage: false,
        hasNextPage: false,
        totalCountExact: true,
      });
    });

    it('searches the last characters of the key (kept in clear) in any case, or a whole key exactly, filters by state, pages', async () => {
      const keysFound = async (search: string) =>
        (await t.http().get('/api/license-keys').query({ productId: product, search }).set(auth).expect(200)).body;
      const search = await keysFound('ew01');
      expect(search.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual(['PART-NEW01', 'FULL-NEW01']);
      expect(search.summary.totalKeys).toBe(6);
      // A whole key is found by its keyed hash (the rest of the key is only stored encrypted).
      expect((await keysFound('part-old01')).licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual([
        'PART-OLD01',
      ]);
      expect((await keysFound('PART-')).licenseKeys).toEqual([]);
      const manual = await t
        .http()
        .get('/api/license-keys')
        .query({ productId: product, search: 'MANUAL' })
        .set(auth)
        .expect(200);
      expect(manual.body.licenseKeys).toEqual([]);
      const full = await t
        .http()
        .get('/api/license-keys')
        .query({ productId: product, status: 'fully-used' })
        .set(auth)
        .expect(200);
      expect(full.body.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual([
        'FULL-NEW01',
        'FULL-OLD01',
      ]);
      const page2 = await t
        .http()
        .get('/api/license-keys')
        .query({ productId: product, limit: 4, page: 2 })
        .set(auth)
        .expect(200);
      expect(page2.body.licenseKeys.map((k: { licenseKey: string }) => k.licenseKey)).toEqual([
        'FULL-NEW01',
        'FULL-OLD01',
      ]);
      expect(page2.body.pagination).toEqual(
        expect.objectContaining({ totalCount: 6, totalPages: 2, hasPreviousPage: true, hasNextPage: false }),
      );
      await t.http().get('/api/license-keys').query({ limit: 0 }).set(auth).expect(400);
    });
  });

  it('keeps an exact search narrow and exactly counted when PostgreSQL believes the pool holds tens of millions of keys', async () => {
    // The lists' ten-million-row rule (test/redemptions-list.e2e-spec.ts), the licence-key list's too: PostgreSQL never
    // estimates a trigram pattern below about 1/10,000 of a table, so in a huge pool a search for one key's last
    // characters looked broad (over 2,000 expected matches) and was given that estimate as its total.
    const [row] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, download_link) VALUES ('Big Pool (Windows)', true, 'https://x.example.com') RETURNING id`,
    );
    const sealed = sealedKeyColumns(testCiphers.get(t.db)!, 'BIGPO-OLKEY');
    // 30,000 sealed keys (one ciphertext for all: only the last characters and the hashes are searched).
    await t.db.query(
      countedKeys(`INSERT INTO license_keys (product_id, key_ciphertext, key_hash, key_last, download_link, license_type, max_activations)
       SELECT $1, $2, decode(md5(g::text), 'hex'), lpad(g::text, 5, '0'), 'https://x.example.com', 'single-user', 1
         FROM generate_series(1, 30000) g`),
      [row.id, sealed.ciphertext],
    );
    await t.db.query('ANALYZE license_keys');
    await t.db.query(`UPDATE pg_class SET reltuples = 100000000 WHERE relname = 'license_keys'`);
    try {
      const [plan] = await t.db.query(
        `EXPLAIN (FORMAT JSON) SELECT 1 FROM license_keys k
          WHERE NOT k.is_manual AND k.product_id = $1 AND (k.key_last ILIKE '%12345%' OR k.key_hash = ANY($2::bytea[]))`,
        [row.id, []],
      );
      const planned = (typeof plan['QUERY PLAN'] === 'string' ? JSON.parse(plan['QUERY PLAN']) : plan['QUERY PLAN'])[0]
        .Plan;
      // Above what a search may count exactly: the old list answered it with this estimate.
      expect(planned['Plan Rows']).toBeGreaterThan(2000);

      const found = (
        await t.http().get('/api/license-keys').query({ productId: row.id, search: '12345' }).set(auth).expect(200)
      ).body;
      expect(found.licenseKeys).toHaveLength(1);
      expect(found.pagination).toMatchObject({
        totalCount: 1,
        totalPages: 1,
        hasNextPage: false,
        totalCountExact: true,
      });
    } finally {
      await t.db.query('ANALYZE license_keys');
    }
  });

  it('moves the pool start past the keys redemptions took (the scheduled job, docs/architecture.md "The pool\'s start")', async () => {
    const [row] = await t.db.query(
      `INSERT INTO products (name, is_license_managed, download_link) VALUES ('Pool Start (Windows)', true, 'https://x.example.com') RETURNING id`,
    );
    const ids: string[] = [];
    for (const n of [1, 2, 3]) {
      ids.push((await create(valid({ productId: row.id, licenseKey: `START-0000${n}` })).expect(201)).body.id);
    }
    for (const code of await addCodes(t.db, row.id, [randomCode(), randomCode()])) {
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
    }
    // The job runs every POOL_START_INTERVAL_MS (one second) in the app's own runner.
    await eventually(
      async () =>
        (await t.db.query(`SELECT 1 FROM license_pool_starts WHERE product_id = $1 AND key_id = $2`, [row.id, ids[2]]))
          .length,
      10_000,
      'the start at the third key',
    );
  });

  describe('activate, deactivate, delete', () => {
    it('never assigns an inactive key; re-activated, it goes to the waiting redemption by itself', async () => {
      const [row] = await t.db.query(
        `INSERT INTO products (name, is_license_managed, download_link) VALUES ('Inactive Test (Windows)', true, 'https://x.example.com') RETURNING id`,
      );
      const key = await create(valid({ productId: row.id, licenseKey: 'INACT-00001' })).expect(201);
      const off = await t
        .http()
        .put(`/api/license-keys/${key.body.id}`)
        .set(auth)
        .send({ isActive: false })
        .expect(200);
      expect(off.body.isActive).toBe(false);

      const [code1, code2] = await addCodes(t.db, row.id, [randomCode(), randomCode()]);
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code1 }))
        .expect(201);
      const fix = await t.http().post('/api/admin/fix-pending-emails').set(auth).expect(200);
      expect(fix.body.assignedCount).toBe(0);
      const [waiting] = await t.db.query(
        `SELECT r.awaiting_license, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS n
           FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code1],
      );
      expect(waiting).toEqual({ awaiting_license: true, n: 0 });

      // Set active: the key joins the pool again and the waiting redemption gets it (backorders), no Fix Pending.
      await t.http().put(`/api/license-keys/${key.body.id}`).set(auth).send({ isActive: true }).expect(200);
      const [filled] = await t.db.query(
        `SELECT r.awaiting_license, (SELECT count(*)::int FROM license_assignments a WHERE a.redemption_id = r.id) AS n
           FROM redemptions r JOIN voucher_codes v ON v.id = r.voucher_code_id WHERE v.code = $1`,
        [code1],
      );
      expect(filled).toEqual({ awaiting_license: false, n: 1 });
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code2 }))
        .expect(201);
      const [k] = await t.db.query(`SELECT current_activations FROM license_keys WHERE id = $1`, [key.body.id]);
      expect(k.current_activations).toBe(1);
    });

    it('refuses a bad isActive and unknown ids', async () => {
      const key = await create(valid({ licenseKey: 'TOGGL-00001' })).expect(201);
      const bad = await t.http().put(`/api/license-keys/${key.body.id}`).set(auth).send({ isActive: 'no' }).expect(400);
      expect(bad.body.message).toBe('isActive must be true or false');
      await t.http().put('/api/license-keys/not-a-uuid').set(auth).send({ isActive: true }).expect(404);
      await t.http().delete('/api/license-keys/00000000-0000-4000-8000-000000000000').set(auth).expect(404);
    });

    it('deletes an unused key and refuses to delete an assigned one with a clear 409', async () => {
      const unused = await create(valid({ licenseKey: 'DELET-00001' })).expect(201);
      await t.http().delete(`/api/license-keys/${unused.body.id}`).set(auth).expect(200);
      expect(await t.db.query(`SELECT id FROM license_keys WHERE id = $1`, [unused.body.id])).toEqual([]);

      const [row] = await t.db.query(
        `INSERT INTO products (name, is_license_managed, download_link) VALUES ('Delete Test (Windows)', true, 'https://x.example.com') RETURNING id`,
      );
      const used = await create(valid({ productId: row.id, licenseKey: 'USED0-00001' })).expect(201);
      const [code] = await addCodes(t.db, row.id, [randomCode()]);
      await t
        .http()
        .post('/api/redeem-voucher')
        .send(redeemBody({ voucherCode: code }))
        .expect(201);
      const res = await t.http().delete(`/api/license-keys/${used.body.id}`).set(auth).expect(409);
      expect(res.body.message).toBe(
        'This license key has been assigned to 1 redemption(s) and cannot be deleted. Deactivate it instead.',
      );
      expect(await t.db.query(`SELECT id FROM license_keys WHERE id = $1`, [used.body.id])).toHaveLength(1);
    });
  });
});
