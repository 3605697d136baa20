import { JwtService } from '@nestjs/jwt';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken } from './helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode } from './helpers/factories';
import { redeemNew } from './helpers/redemptions';

/**
 * docs/product.md §7.3 "least privilege": every route that returns voucher codes, licence keys or customer data,
 * called by every kind of caller, answers exactly as the matrix says, and a caller without `licenses.view`
 * sees every licence key masked per docs/product.md §10.6.
 */
type Caller = 'admin' | 'operator' | 'shop-manager' | 'unknown role' | 'no token' | 'expired token' | 'revoked session';
const CALLERS: Caller[] = [
  'admin',
  'operator',
  'shop-manager',
  'unknown role',
  'no token',
  'expired token',
  'revoked session',
];
const ROLE: Partial<Record<Caller, string>> = {
  admin: 'admin',
  operator: 'operator',
  'shop-manager': 'shop-manager',
  'unknown role': 'auditor',
};

const KEY = 'LPKEY-AAAAA-BBBBB-CCCCC-ZZZZZ';
const MASKED = 'LPKEY-•••••-•••••-•••••-ZZZZZ';
const MANUAL = 'MANKEY-DDDDD-EEEEE-YYYYY';
const MANUAL_MASKED = 'MANKEY-•••••-•••••-YYYYY';

type Want = 200 | 401 | 403;

describe('Least privilege: codes, keys and customer data by caller (docs/product.md §7.3)', () => {
  let t: TestApp;
  let adminAuth: Record<string, string>;
  let product: string;
  let pooled: { id: string; code: string; email: string };
  let manual: { id: string; code: string; email: string };
  const users: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    for (const role of ['admin', 'operator', 'shop-manager', 'auditor']) {
      users[role] = (await createAdminUser(t, { role })).id;
    }
    adminAuth = bearer((await issueToken(t, users.admin)).token);
    product = await productId(t.db, PRODUCTS.proPlusWindows);
    // Through the API, whatever the storage of keys: a pool key, a redemption that takes it, and one assigned by hand.
    await t
      .http()
      .post('/api/license-keys')
      .set(adminAuth)
      .send({
        productId: product,
        licenseKey: KEY,
        downloadLink: 'https://dl.example.com/p.exe',
        licenseType: 'single-user',
      })
      .expect(201);
    pooled = await redeemNew(t, product, {}, 'LPA');
    await addCodes(t.db, product, [randomCode('LPU')]);
    manual = await redeemNew(t, product, {}, 'LPB');
    await t
      .http()
      .post(`/api/redemptions/${manual.id}/assign-license`)
      .set(adminAuth)
      .send({ licenseKey: MANUAL, downloadLink: 'https://dl.example.com/m.exe' })
      .expect(200);
    // Both as after an export: the exports below mark rows exported, so every route reads the exported view and
    // no route's answer depends on which ran first.
    await t.db.query(`UPDATE redemptions SET exported = true, exported_at = now() WHERE id = ANY($1::uuid[])`, [
      [pooled.id, manual.id],
    ]);
  });
  afterAll(() => t.close());

  async function headersFor(caller: Caller): Promise<Record<string, string>> {
    if (caller === 'no token') return {};
    if (caller === 'expired token') {
      const { sessionId } = await issueToken(t, users.admin);
      const exp = Math.floor(Date.now() / 1000) - 60;
      return bearer(
        await new JwtService().signAsync(
          { sub: users.admin, sid: sessionId, typ: 'access', exp },
          { secret: t.config.jwtSecret, algorithm: 'HS256' },
        ),
      );
    }
    if (caller === 'revoked session') {
      const { token, sessionId } = await issueToken(t, users.admin);
      await t.db.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
      return bearer(token);
    }
    return bearer((await issueToken(t, users[ROLE[caller]!])).token);
  }

  /** Expected status per caller; the body check runs on 200s. */
  const matrix = (allowed: Caller[]): Record<Caller, Want> =>
    Object.fromEntries(
      CALLERS.map((c) => [
        c,
        allowed.includes(c) ? 200 : c === 'no token' || c === 'expired token' || c === 'revoked session' ? 401 : 403,
      ]),
    ) as Record<Caller, Want>;

  const keyOf = (body: { assignedLicenseKey: { licenseKey: string } | null }) => body.assignedLicenseKey?.licenseKey;
  const readsKeys = (c: Caller) => c === 'admin' || c === 'operator';

  const ROUTES: Array<{
    name: string;
    call: (h: Record<string, string>) => Promise<{ status: number; body: unknown; text: string }>;
    want: Record<Caller, Want>;
    check?: (caller: Caller, res: { body: unknown; text: string }) => void;
  }> = [
    {
      name: 'GET /api/products/:id/voucher-codes-detailed (vouchers.view)',
      call: (h) => t.http().get(`/api/products/${product}/voucher-codes-detailed`).query({ status: 'all' }).set(h),
      want: matrix(['admin', 'operator']),
      check: (_c, res) => expect(JSON.stringify(res.body)).toContain(pooled.code),
    },
    {
      name: 'GET /api/products/:id/batches (vouchers.view)',
      call: (h) => t.http().get(`/api/products/${product}/batches`).set(h),
      want: matrix(['admin', 'operator']),
      check: (_c, res) => expect((res.body as Array<{ id: string }>).map((b) => b.id)).toContain(product),
    },
    {
      name: 'GET /api/export/batch/:id (vouchers.view, export.unredeemed-vouchers, export.redeemed-vouchers)',
      // The product's "before batches" batch (id = product id) holds the codes added here without an upload.
      call: (h) => t.http().get(`/api/export/batch/${product}`).query({ format: 'csv' }).set(h),
      want: matrix(['admin']),
      check: (_c, res) => expect(res.text).toContain(pooled.code),
    },
    {
      name: 'GET /api/license-keys (licenses.view)',
      call: (h) => t.http().get('/api/license-keys').query({ productId: product }).set(h),
      want: matrix(['admin', 'operator']),
      check: (_c, res) =>
        expect(
          (res.body as { licenseKeys: Array<{ licenseKey: string }> }).licenseKeys.map((k) => k.licenseKey),
        ).toContain(KEY),
    },
    {
      name: 'GET /api/redemptions (dashboard.view; keys masked without licenses.view)',
      call: (h) => t.http().get('/api/redemptions').query({ limit: 50, showExported: 'true' }).set(h),
      want: matrix(['admin', 'operator', 'shop-manager']),
      check: (c, res) => {
        const rows = (
          res.body as { redemptions: Array<{ id: string; assignedLicenseKey: { licenseKey: string } | null }> }
        ).redemptions;
        expect(keyOf(rows.find((r) => r.id === pooled.id)!)).toBe(readsKeys(c) ? KEY : MASKED);
        expect(keyOf(rows.find((r) => r.id === manual.id)!)).toBe(
          readsKeys(c) ? `MANUAL_${MANUAL}` : `MANUAL_${MANUAL_MASKED}`,
        );
        if (!readsKeys(c)) expect(JSON.stringify(res.body)).not.toMatch(/AAAAA-BBBBB|DDDDD-EEEEE/);
      },
    },
    {
      name: 'GET /api/redemptions/:id (dashboard.view; key masked without licenses.view)',
      call: (h) => t.http().get(`/api/redemptions/${pooled.id}`).set(h),
      want: matrix(['admin', 'operator', 'shop-manager']),
      check: (c, res) => {
        expect(keyOf(res.body as { assignedLicenseKey: { licenseKey: string } })).toBe(readsKeys(c) ? KEY : MASKED);
        expect((res.body as { customer: { email: string } }).customer.email).toBe(pooled.email);
      },
    },
    {
      name: 'POST /api/export/selected-redemptions (export.redeemed-vouchers)',
      call: (h) =>
        t
          .http()
          .post('/api/export/selected-redemptions')
          .set(h)
          .send({ redemptionIds: [pooled.id], format: 'csv' }),
      want: matrix(['admin', 'operator']),
      check: (_c, res) => expect(res.text).toContain(KEY),
    },
    {
      name: 'GET /api/export/redeemed-vouchers (export.redeemed-data)',
      call: (h) => t.http().get('/api/export/redeemed-vouchers').query({ format: 'csv', showExported: 'true' }).set(h),
      want: matrix(['admin']),
      check: (_c, res) => expect(res.text).toContain(KEY),
    },
    {
      name: 'GET /api/export/redeemed-voucher-codes (export.redeemed-vouchers)',
      call: (h) => t.http().get('/api/export/redeemed-voucher-codes').query({ format: 'csv' }).set(h),
      want: matrix(['admin', 'operator']),
      check: (_c, res) => expect(res.text).toContain(pooled.code),
    },
    {
      name: 'GET /api/export/unredeemed-vouchers (export.unredeemed-vouchers)',
      call: (h) => t.http().get('/api/export/unredeemed-vouchers').query({ format: 'csv' }).set(h),
      want: matrix(['admin']),
    },
  ];

  it.each(ROUTES.map((r) => [r.name, r] as const))('%s', async (_name, route) => {
    const mismatches: string[] = [];
    for (const caller of CALLERS) {
      const res = await route.call(await headersFor(caller));
      if (res.status !== route.want[caller]) {
        mismatches.push(
          `${caller}: got ${res.status} ${JSON.stringify((res.body as { message?: string })?.message)}, want ${route.want[caller]}`,
        );
        continue;
      }
      if (res.status === 200) route.check?.(caller, res);
    }
    expect(mismatches).toEqual([]);
  });

  it('answers /api/admin/me with the permissions of each role', async () => {
    const me = async (caller: Caller) =>
      (
        await t
          .http()
          .get('/api/admin/me')
          .set(await headersFor(caller))
          .expect(200)
      ).body.permissions as string[];
    expect(await me('admin')).toEqual(
      expect.arrayContaining(['vouchers.view', 'licenses.view', 'vouchers.void', 'webhooks.manage']),
    );
    const operator = await me('operator');
    expect(operator).toEqual(expect.arrayContaining(['vouchers.view', 'licenses.view', 'vouchers.void']));
    expect(operator).not.toContain('webhooks.manage');
    expect(await me('shop-manager')).toEqual(['dashboard.view']);
    await t
      .http()
      .get('/api/admin/me')
      .set(await headersFor('unknown role'))
      .expect(403);
  });
});
