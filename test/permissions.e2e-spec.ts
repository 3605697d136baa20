import { Controller, Get, INestApplication, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { JwtService } from '@nestjs/jwt';
import request from 'supertest';
import { AppModule } from '../backend/src/app.module';
import { RequirePermissions } from '../backend/src/common/decorators/require-permissions.decorator';
import { Permission, ROLE_PERMISSIONS } from '../backend/src/common/permissions';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken } from './helpers/auth';
import { concretePath, registeredRoutes } from './helpers/routes';
import { ROUTE_PERMISSIONS } from './route-permissions';

/** DECISIONS §7, written out: the server must grant exactly this. */
const MATRIX: Record<string, string[]> = {
  admin: [
    'dashboard.view',
    'vouchers.view',
    'licenses.view',
    'settings.access',
    'system.cleanup',
    'admin.reset-operator',
    'admin.create-shop-manager',
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
  ],
  'shop-manager': ['dashboard.view'],
  auditor: [], // any other role: nothing
};

type Variant = 'no token' | 'admin' | 'operator' | 'shop-manager' | 'unknown role' | 'expired token' | 'revoked session' | 'other secret' | 'alg:none';
const VARIANTS: Variant[] = ['no token', 'admin', 'operator', 'shop-manager', 'unknown role', 'expired token', 'revoked session', 'other secret', 'alg:none'];
const ROLE_OF: Partial<Record<Variant, string>> = { admin: 'admin', operator: 'operator', 'shop-manager': 'shop-manager', 'unknown role': 'auditor' };

/** The guard's decision only: 401/403 is "refused"; anything else got past the guard. */
type Decision = 'allowed' | 401 | 403;

describe('Permission matrix over every registered route', () => {
  let t: TestApp;
  const users: Record<string, string> = {};

  beforeAll(async () => {
    t = await startTestApp();
    for (const role of ['admin', 'operator', 'shop-manager', 'auditor']) users[role] = (await createAdminUser(t, { role })).id;
  });
  afterAll(() => t.close());

  it('has the role matrix of DECISIONS §7', () => {
    for (const [role, permissions] of Object.entries(MATRIX)) {
      expect([...(ROLE_PERMISSIONS[role as keyof typeof ROLE_PERMISSIONS] ?? [])].sort()).toEqual([...permissions].sort());
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

  async function tokenFor(variant: Variant): Promise<string | null> {
    const jwt = new JwtService();
    const session = async () => issueToken(t, users.admin);
    switch (variant) {
      case 'no token':
        return null;
      case 'expired token': {
        const { sessionId } = await session();
        const exp = Math.floor(Date.now() / 1000) - 60;
        return jwt.signAsync({ sub: users.admin, sid: sessionId, typ: 'access', exp }, { secret: t.config.jwtSecret, algorithm: 'HS256' });
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

  function expected(access: 'public' | Permission[], variant: Variant): Decision {
    if (access === 'public') return 'allowed';
    const role = ROLE_OF[variant];
    if (!role) return 401;
    if (MATRIX[role].length === 0) return 403; // a role outside the matrix gets nothing
    return access.every((p) => MATRIX[role].includes(p)) ? 'allowed' : 403;
  }

  it('lets through, 401s or 403s each route for each caller exactly as the matrix says', async () => {
    const routes = registeredRoutes(t.app);
    expect(routes.length).toBeGreaterThanOrEqual(Object.keys(ROUTE_PERMISSIONS).length);
    const mismatches: string[] = [];
    for (const route of routes) {
      const access = ROUTE_PERMISSIONS[route.key];
      if (!access) continue; // reported by the declaration test
      for (const variant of VARIANTS) {
        const token = await tokenFor(variant);
        // An @All() route is tried with GET.
        const method = (route.method === 'ALL' ? 'get' : route.method.toLowerCase()) as 'get' | 'post' | 'put' | 'patch' | 'delete';
        let req = t.http()[method](concretePath(route.path));
        if (token) req = req.set(bearer(token));
        if (route.method !== 'GET') req = req.send({});
        const res = await req;
        const decision: Decision = res.status === 401 || res.status === 403 ? (res.status as 401 | 403) : 'allowed';
        const want = expected(access, variant);
        if (decision !== want) mismatches.push(`${route.key} as ${variant}: got ${res.status} ${JSON.stringify(res.body?.message)}, want ${want}`);
      }
    }
    expect(mismatches).toEqual([]);
  });
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
    @Module({ imports: [AppModule.forRoot(t.config, { databaseUrl: t.database.url, processJobs: false })], controllers: [ProbeController] })
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
