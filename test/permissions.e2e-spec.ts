import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { AppModule } from '../backend/src/app.module';
import { RequirePermissions } from '../backend/src/common/decorators/require-permissions.decorator';
import { Permission, ROLE_PERMISSIONS, TOKEN_PERMISSIONS } from '../backend/src/common/permissions';
import { startTestApp, TestApp } from './helpers/app';
import { storeRedemption } from './helpers/admin-data';
import { bearer, createAdminUser, createApiToken, issueToken, tokenFor } from './helpers/auth';
import { CustomerTokenService } from '../backend/src/modules/auth/customer-token.service';
import { addCodes, licenseManagedProduct, productId, PRODUCTS, randomCode } from './helpers/factories';
import { redeemNew } from './helpers/redemptions';
import { concretePath, registeredRoutes } from './helpers/routes';
import { ROUTE_PERMISSIONS, SIGNED_ROUTES } from './route-permissions';

/** docs/product.md §7.2, written out: the server must grant exactly this. */
const MATRIX: Record<string, string[]> = {
  admin: [
    'dashboard.view',
    'vouchers.view',
    'licenses.view',
    'settings.access',
    'system.cleanup',
    'admin.reset-operator',
    'admin.create-shop-manager',
    'admin.deactivate-user',
    'redemptions.delete',
    'export.redeemed-data',
    'export.unredeemed-vouchers',
    'export.redeemed-vouchers',
    'vouchers.upload',
    'vouchers.delete',
    'products.edit',
    'licenses.manage',
    'licenses.assign',
    'emails.resend',
    'emails.fix-pending',
    'vouchers.void',
    'webhooks.manage',
    'api-tokens.manage',
    'marketplaces.manage',
    'reviews.manage',
  ],
  operator: [
    'dashboard.view',
    'vouchers.view',
    'licenses.view',
    'export.redeemed-vouchers',
    'vouchers.upload',
    'vouchers.delete',
    'products.edit',
    'licenses.manage',
    'licenses.assign',
    'emails.resend',
    'vouchers.void',
    'reviews.manage',
  ],
  'shop-manager': ['dashboard.view'],
  auditor: [], // any other role: nothing
};

/** What an integration's API token may hold: the matrix's data permissions, nothing of settings, accounts or tokens. */
const DATA_PERMISSIONS = MATRIX.admin.filter(
  (p) =>
    ![
      'settings.access',
      'system.cleanup',
      'admin.reset-operator',
      'admin.create-shop-manager',
      'admin.deactivate-user',
      'webhooks.manage',
      'api-tokens.manage',
      'marketplaces.manage',
    ].includes(p),
);

type TokenVariant = `token with ${string}`;
type Variant =
  | 'no token'
  | 'admin'
  | 'operator'
  | 'shop-manager'
  | 'unknown role'
  | 'expired token'
  | 'revoked session'
  | 'other secret'
  | 'alg:none'
  | 'customer token'
  | TokenVariant;
// A licence-centre customer's token (docs/auth.md) only works on the customer routes, which take nothing else; last,
// one API token per data permission holding only that permission.
const VARIANTS: Variant[] = [
  'no token',
  'admin',
  'operator',
  'shop-manager',
  'unknown role',
  'expired token',
  'revoked session',
  'other secret',
  'alg:none',
  'customer token',
  ...DATA_PERMISSIONS.map((p): TokenVariant => `token with ${p}`),
];
const tokenPermission = (variant: Variant) =>
  variant.startsWith('token with ') ? variant.slice('token with '.length) : undefined;
const ROLE_OF: Partial<Record<Variant, string>> = {
  admin: 'admin',
  operator: 'operator',
  'shop-manager': 'shop-manager',
  'unknown role': 'auditor',
};

/** The guard's decision: 401/403 is "refused"; anything else below 500 got past the guard (a 5xx is a failure). */
type Decision = 'allowed' | 401 | 403;

describe('Permission matrix over every registered route', () => {
  let t: TestApp;
  const users: Record<string, string> = {};
  let customer: { id: string; email: string } | undefined;

  beforeAll(async () => {
    t = await startTestApp();
    for (const role of ['admin', 'operator', 'shop-manager', 'auditor']) {
      users[role] = (await createAdminUser(t, { role })).id;
    }
  });

  /** A customer with a redemption (made again when Clean System, called as admin, took the last one). */
  async function liveCustomer(): Promise<{ id: string; email: string }> {
    if (customer && (await t.db.query(`SELECT 1 FROM customers WHERE id = $1`, [customer.id])).length) return customer;
    const redeemed = await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac), {}, 'CUST');
    const [row] = await t.db.query(`SELECT customer_id FROM redemptions WHERE id = $1`, [redeemed.id]);
    return (customer = { id: row.customer_id, email: redeemed.email });
  }
  afterAll(() => t.close());

  it('has the role matrix of docs/product.md §7.2, and API tokens may hold exactly its data permissions', () => {
    expect([...TOKEN_PERMISSIONS].sort()).toEqual([...DATA_PERMISSIONS].sort());
    for (const [role, permissions] of Object.entries(MATRIX)) {
      expect([...(ROLE_PERMISSIONS[role as keyof typeof ROLE_PERMISSIONS] ?? [])].sort()).toEqual(
        [...permissions].sort(),
      );
    }
    expect([...MATRIX.admin].sort()).toEqual(Object.values(Permission).sort());
  });

  it('declares for every registered route exactly what test/route-permissions.ts lists', () => {
    const registered = Object.fromEntries(registeredRoutes(t.app).map((r) => [r.key, r.access ?? 'NOT DECLARED']));
    const sorted = (map: Record<string, unknown>) =>
      Object.fromEntries(
        Object.entries(map)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([k, v]) => [k, Array.isArray(v) ? [...v].sort() : v]),
      );
    expect(sorted(registered)).toEqual(sorted(ROUTE_PERMISSIONS));
  });

  const apiTokens: Record<string, string> = {};
  async function tokenFor(variant: Variant): Promise<string | null> {
    const jwt = new JwtService();
    const permission = tokenPermission(variant);
    if (permission) return (apiTokens[permission] ??= (await createApiToken(t, users.admin, [permission])).token);
    const session = async () => issueToken(t, users.admin);
    switch (variant) {
      case 'no token':
        return null;
      case 'expired token': {
        const { sessionId } = await session();
        const exp = Math.floor(Date.now() / 1000) - 60;
        return jwt.signAsync(
          { sub: users.admin, sid: sessionId, typ: 'access', exp },
          { secret: t.config.jwtSecret, algorithm: 'HS256' },
        );
      }
      case 'revoked session': {
        const { token, sessionId } = await session();
        await t.db.query(`UPDATE admin_sessions SET is_active = false WHERE id = $1`, [sessionId]);
        return token;
      }
      case 'other secret': {
        const { sessionId } = await session();
        return jwt.signAsync(
          { sub: users.admin, sid: sessionId, typ: 'access' },
          { secret: 'some-other-secret-that-is-32-bytes-long', algorithm: 'HS256', expiresIn: '15m' },
        );
      }
      case 'customer token': {
        const { id, email } = await liveCustomer();
        return (await t.app.get(CustomerTokenService).issue(id, email, new Date())).customerToken;
      }
      case 'alg:none': {
        const { sessionId } = await session();
        const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
        const exp = Math.floor(Date.now() / 1000) + 600;
        return `${b64({ alg: 'none', typ: 'JWT' })}.${b64({ sub: users.admin, sid: sessionId, typ: 'access', exp })}.`;
      }
      default:
        // A fresh session per request: logout and the like must not affect the next case.
        return (await issueToken(t, users[ROLE_OF[variant]!])).token;
    }
  }

  function expected(access: 'public' | 'customer' | Permission[], variant: Variant): Decision {
    if (access === 'public') return 'allowed';
    if (access === 'customer') return variant === 'customer token' ? 'allowed' : 401;
    const permission = tokenPermission(variant);
    // A token is let onto a data route its permission covers, never onto an account route ([]).
    if (permission) return access.length > 0 && access.every((p) => p === permission) ? 'allowed' : 403;
    const role = ROLE_OF[variant];
    if (!role) return 401;
    if (MATRIX[role].length === 0) return 403; // a role outside the matrix gets nothing
    return access.every((p) => MATRIX[role].includes(p)) ? 'allowed' : 403;
  }

  /** Calls every route as the variant and answers what differs from the matrix. */
  async function mismatchesOf(variant: Variant): Promise<string[]> {
    const mismatches: string[] = [];
    for (const route of registeredRoutes(t.app)) {
      const access = ROUTE_PERMISSIONS[route.key];
      if (!access) continue; // reported by the declaration test
      const token = await tokenFor(variant);
      // An @All() route is tried with GET.
      const method = (route.method === 'ALL' ? 'get' : route.method.toLowerCase()) as
        'get' | 'post' | 'put' | 'patch' | 'delete';
      let req = t.http()[method](concretePath(route.path));
      if (token) req = req.set(bearer(token));
      if (route.method !== 'GET') req = req.send({});
      const res = await req;
      const decision: Decision = res.status === 401 || res.status === 403 ? (res.status as 401 | 403) : 'allowed';
      const want = SIGNED_ROUTES.includes(route.key) ? 401 : expected(access, variant);
      // A 5xx is never an answer, whoever asks and whatever the body (an empty body, an id that matches nothing).
      if (res.status >= 500) {
        mismatches.push(`${route.key} as ${variant}: got ${res.status} ${JSON.stringify(res.body?.message)}`);
      } else if (decision !== want) {
        mismatches.push(
          `${route.key} as ${variant}: got ${res.status} ${JSON.stringify(res.body?.message)}, want ${want}`,
        );
      }
    }
    return mismatches;
  }

  it('lets through, 401s or 403s each route for each caller exactly as the matrix says', async () => {
    expect(registeredRoutes(t.app).length).toBeGreaterThanOrEqual(Object.keys(ROUTE_PERMISSIONS).length);
    const mismatches: string[] = [];
    for (const variant of VARIANTS.filter((v) => !tokenPermission(v))) {
      mismatches.push(...(await mismatchesOf(variant)));
    }
    expect(mismatches).toEqual([]);
    // Every route (about 90) for each caller in turn, a request each, some of them writes: more than the default minute
    // on a loaded 2-core machine.
  }, 180_000);

  it('lets an API token with one data permission onto exactly the routes that permission covers', async () => {
    // The tokens are independent callers that change nothing they are refused: they are tried side by side.
    const mismatches = await Promise.all(
      VARIANTS.filter((v) => tokenPermission(v)).map((variant) => mismatchesOf(variant)),
    );
    expect(mismatches.flat()).toEqual([]);
  });
});

/** A request to one route: its concrete path and what it sends. */
interface Call {
  path: string;
  query?: Record<string, string>;
  body?: object;
  file?: { name: string; content: string };
}

/**
 * For each permission, one route that needs it and a well-formed request to it (with the data it acts on made
 * first). A route added for a permission that no route needed before needs its line here.
 */
const VALID_CALLS: Partial<Record<Permission, { route: string; prepare: (t: TestApp) => Promise<Call> }>> = {
  [Permission.DashboardView]: { route: 'GET /api/stats/:period', prepare: async () => ({ path: '/api/stats/today' }) },
  [Permission.VouchersView]: {
    route: 'GET /api/products/:id/voucher-codes-detailed',
    prepare: async (t) => ({
      path: `/api/products/${await productId(t.db, PRODUCTS.proPlusWindows)}/voucher-codes-detailed`,
    }),
  },
  [Permission.LicensesView]: { route: 'GET /api/license-keys', prepare: async () => ({ path: '/api/license-keys' }) },
  [Permission.LicensesManage]: {
    route: 'POST /api/license-keys',
    prepare: async (t) => ({
      path: '/api/license-keys',
      body: {
        productId: await productId(t.db, PRODUCTS.proPlusWindows),
        licenseKey: randomCode('PERM'),
        downloadLink: 'https://dl.example.com/office.exe',
        licenseType: 'single-user',
      },
    }),
  },
  [Permission.ProductsEdit]: {
    route: 'PUT /api/products/:id',
    prepare: async (t) => ({
      path: `/api/products/${await productId(t.db, PRODUCTS.homeBusinessMac)}`,
      body: {
        emailSubject: 'Your Office installer',
        emailTemplate: '<p>Hello {{customer_name}}: {{download_link}}</p>',
      },
    }),
  },
  [Permission.VouchersUpload]: {
    route: 'POST /api/products/:id/voucher-codes',
    prepare: async (t) => ({
      path: `/api/products/${await productId(t.db, PRODUCTS.proPlusWindows)}/voucher-codes`,
      file: { name: 'codes.csv', content: `code\n${randomCode('UPL')}\n` },
    }),
  },
  [Permission.VouchersVoid]: {
    route: 'POST /api/products/:id/voucher-codes/void',
    prepare: async (t) => {
      const product = await productId(t.db, PRODUCTS.proPlusWindows);
      const [code] = await addCodes(t.db, product, [randomCode('VOID')]);
      return { path: `/api/products/${product}/voucher-codes/void`, body: { codes: [code] } };
    },
  },
  [Permission.VouchersDelete]: {
    route: 'DELETE /api/voucher-codes/:id',
    prepare: async (t) => {
      const [code] = await addCodes(t.db, await productId(t.db, PRODUCTS.proPlusWindows), [randomCode('DEL')]);
      const [{ id }] = await t.db.query(`SELECT id FROM voucher_codes WHERE code = $1`, [code]);
      return { path: `/api/voucher-codes/${id}` };
    },
  },
  [Permission.ExportRedeemedVouchers]: {
    route: 'GET /api/export/redeemed-voucher-codes',
    prepare: async (t) => {
      const product = await productId(t.db, PRODUCTS.homeBusinessMac);
      await storeRedemption(t, { product, code: randomCode('EXPC') });
      return { path: '/api/export/redeemed-voucher-codes', query: { format: 'csv', productId: product } };
    },
  },
  [Permission.ExportRedeemedData]: {
    route: 'GET /api/export/redeemed-vouchers',
    prepare: async (t) => {
      const code = randomCode('EXPD');
      await storeRedemption(t, { product: await productId(t.db, PRODUCTS.homeBusinessMac), code });
      return { path: '/api/export/redeemed-vouchers', query: { format: 'csv', search: code } };
    },
  },
  [Permission.ExportUnredeemedVouchers]: {
    route: 'GET /api/export/unredeemed-vouchers',
    prepare: async (t) => {
      const product = await productId(t.db, PRODUCTS.homeBusinessMac);
      await addCodes(t.db, product, [randomCode('EXPU')]);
      return { path: '/api/export/unredeemed-vouchers', query: { format: 'csv', productId: product } };
    },
  },
  [Permission.EmailsResend]: {
    route: 'POST /api/redemptions/:id/resend-email',
    prepare: async (t) => ({
      path: `/api/redemptions/${(await redeemNew(t, await productId(t.db, PRODUCTS.homeBusinessMac))).id}/resend-email`,
    }),
  },
  [Permission.LicensesAssign]: {
    route: 'POST /api/redemptions/:id/assign-license',
    prepare: async (t) => {
      // A licence-managed product with an empty pool: the redemption waits for a key.
      const r = await redeemNew(t, await licenseManagedProduct(t.db, `Assign ${randomCode('P')}`));
      return {
        path: `/api/redemptions/${r.id}/assign-license`,
        body: { licenseKey: 'HAND1-ASSIGN-KEY01', downloadLink: 'https://dl.example.com/office.exe' },
      };
    },
  },
  [Permission.RedemptionsDelete]: {
    route: 'DELETE /api/redemptions/:id',
    prepare: async (t) => ({
      path: `/api/redemptions/${await storeRedemption(t, { product: await productId(t.db, PRODUCTS.homeBusinessMac), code: randomCode('RDEL') })}`,
    }),
  },
  [Permission.EmailsFixPending]: {
    route: 'POST /api/admin/fix-pending-emails',
    prepare: async () => ({ path: '/api/admin/fix-pending-emails' }),
  },
  [Permission.WebhooksManage]: { route: 'GET /api/webhooks', prepare: async () => ({ path: '/api/webhooks' }) },
  [Permission.MarketplacesManage]: {
    route: 'GET /api/marketplaces',
    prepare: async () => ({ path: '/api/marketplaces' }),
  },
  [Permission.ReviewsManage]: { route: 'GET /api/reviews', prepare: async () => ({ path: '/api/reviews' }) },
  [Permission.ApiTokensManage]: {
    route: 'POST /api/admin/api-tokens',
    prepare: async () => ({
      path: '/api/admin/api-tokens',
      body: { name: 'Permission test', permissions: ['dashboard.view'] },
    }),
  },
  [Permission.SettingsAccess]: {
    route: 'GET /api/admin/privacy-requests',
    prepare: async () => ({ path: '/api/admin/privacy-requests' }),
  },
  [Permission.SystemCleanup]: {
    route: 'DELETE /api/admin/cleanup-redeemed',
    prepare: async () => ({ path: '/api/admin/cleanup-redeemed' }),
  },
  [Permission.AdminResetOperator]: {
    route: 'POST /api/admin/reset-operator',
    prepare: async () => ({ path: '/api/admin/reset-operator' }),
  },
  [Permission.AdminDeactivateUser]: {
    route: 'POST /api/admin/users/:id/deactivate',
    prepare: async (t) => ({
      path: `/api/admin/users/${(await createAdminUser(t, { role: 'shop-manager' })).id}/deactivate`,
    }),
  },
  [Permission.AdminCreateShopManager]: {
    route: 'POST /api/admin/create-shop-manager',
    prepare: async () => ({
      path: '/api/admin/create-shop-manager',
      body: { username: `shop_${randomCode('S').slice(2, 12).toLowerCase()}` },
    }),
  },
};

/** The role with the fewest permissions that holds `permission`: the permission alone must be enough. */
function leastHolder(permission: Permission): string {
  const holders = Object.entries(MATRIX).filter(([, permissions]) => permissions.includes(permission));
  return holders.sort(([, a], [, b]) => a.length - b.length)[0][0];
}

/** `/api/products/:id/x` matches `/api/products/<uuid>/x`. */
const routePattern = (path: string) => new RegExp(`^${path.replace(/:\w+/g, '[^/]+')}$`);

describe('Allowed means it works: each permission admits its holder to a real call', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('has a valid call for every permission some route requires, on a route that requires it', () => {
    const required = new Set(
      Object.values(ROUTE_PERMISSIONS).flatMap((access) => (Array.isArray(access) ? access : [])),
    );
    expect(Object.keys(VALID_CALLS).sort()).toEqual([...required].sort());
    for (const [permission, { route }] of Object.entries(VALID_CALLS)) {
      expect([route, ROUTE_PERMISSIONS[route]]).toEqual([route, expect.arrayContaining([permission])]);
    }
  });

  /** Prepares the permission's valid call, makes it with `token()`, and expects a 2xx answer. */
  async function expect2xx(
    { route, prepare }: { route: string; prepare: (t: TestApp) => Promise<Call> },
    token: () => Promise<string>,
  ) {
    const [method, pattern] = route.split(' ');
    const call = await prepare(t);
    expect(call.path).toMatch(routePattern(pattern));
    const http = t.http();
    const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    let req = http[verb](call.path).set(bearer(await token()));
    if (call.query) req = req.query(call.query);
    if (call.file) req = req.attach('file', Buffer.from(call.file.content), call.file.name);
    else if (call.body) req = req.send(call.body);
    const res = await req;
    expect(res.status >= 200 && res.status < 300 ? '2xx' : `${res.status} ${JSON.stringify(res.body)}`).toBe('2xx');
  }

  it.each(
    Object.entries(VALID_CALLS).map(
      ([permission, spec]) => [permission, leastHolder(permission as Permission), spec!] as const,
    ),
  )('%s: role %s gets a 2xx answer to a valid request', (_permission, role, spec) =>
    expect2xx(spec, () => tokenFor(t, role)),
  );

  it.each(Object.entries(VALID_CALLS).filter(([permission]) => DATA_PERMISSIONS.includes(permission)))(
    '%s: an API token holding only it gets a 2xx answer to a valid request',
    (permission, spec) =>
      expect2xx(
        spec!,
        async () => (await createApiToken(t, (await createAdminUser(t, { role: 'admin' })).id, [permission])).token,
      ),
  );
});

@Controller('probe')
class ProbeController {
  @Get('undeclared')
  undeclared() {
    return { reached: true };
  }

  @RequirePermissions()
  @Get('declared')
  declared() {
    return { reached: true };
  }
}

describe('A route that declares nothing', () => {
  let t: TestApp;
  let probe: INestApplication;

  beforeAll(async () => {
    t = await startTestApp();
    @Module({
      imports: [AppModule.forRoot(t.config, { databaseUrl: t.database.url, processJobs: false })],
      controllers: [ProbeController],
    })
    class ProbeAppModule {}
    probe = await NestFactory.create(ProbeAppModule, { logger: false });
    probe.setGlobalPrefix('api');
    await probe.init();
  });
  afterAll(async () => {
    await probe.close();
    await t.close();
  });

  it('is found by the route enumeration and refused with 403 even for an admin', async () => {
    const route = registeredRoutes(probe).find((r) => r.key === 'GET /api/probe/undeclared');
    expect(route?.access).toBeUndefined();

    const admin = await createAdminUser(t, { role: 'admin' });
    const { token } = await issueToken(t, admin.id);
    await request(probe.getHttpServer()).get('/api/probe/undeclared').expect(401);
    const res = await request(probe.getHttpServer()).get('/api/probe/undeclared').set(bearer(token)).expect(403);
    expect(res.body.message).toBe('You do not have permission to perform this action');
    await request(probe.getHttpServer()).get('/api/probe/declared').set(bearer(token)).expect(200, { reached: true });
  });
});
