import { waitFor } from '@testing-library/react';
import { readdirSync, readFileSync, statSync } from 'fs';
import { join, relative } from 'path';
import { meOf } from '../features/admin/adminTesting';
import { declaredSuccess, fakeServer } from '../test/fakeServer';
import { client } from '../api';
import { TAG_TYPES, type TagType } from './api';
import { CHANGES, invalidatesFor, NOT_RTK, TAG_OF, type Change } from './invalidation';
import { makeStore, type AppStore } from './store';

const SRC = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** One query per tag type, watched while a mutation runs: its path and a body of the API's shape. */
const PAGINATION = {
  currentPage: 1,
  limit: 50,
  totalCount: 0,
  totalPages: 0,
  hasPreviousPage: false,
  hasNextPage: false,
  totalCountExact: true,
};
const PROBES: Record<TagType, { endpoint: string; arg: unknown; path: string; body: unknown }> = {
  Stats: {
    endpoint: 'statsControllerForPeriod',
    arg: 'today',
    path: '/api/stats/today',
    body: {
      period: 'today',
      totalRedemptions: 0,
      activeVouchers: 0,
      voidVouchers: 0,
      timeRange: 'Today',
      from: '2026-11-21T00:00:00.000Z',
      to: '2026-11-22T00:00:00.000Z',
      timeZone: 'UTC',
      productStats: [],
      dailyRedemptions: [],
    },
  },
  Products: { endpoint: 'productControllerList', arg: undefined, path: '/api/products', body: [] },
  Redemptions: {
    endpoint: 'redemptionAdminControllerList',
    arg: { page: 1, limit: 50, showExported: false },
    path: '/api/redemptions',
    body: { redemptions: [], pagination: PAGINATION },
  },
  VoucherCodes: {
    endpoint: 'voucherControllerList',
    arg: { id: 'p1', limit: 50, offset: 0 },
    path: '/api/products/p1/voucher-codes-detailed',
    body: { codes: [], pagination: PAGINATION, totalCount: 0, hasMore: false, totalCountExact: true },
  },
  LicenseKeys: {
    endpoint: 'licenseKeyControllerList',
    arg: { page: 1, limit: 100 },
    path: '/api/license-keys',
    body: {
      licenseKeys: [],
      summary: { totalKeys: 0, active: 0, available: 0, partiallyUsed: 0, fullyUsed: 0 },
      pagination: PAGINATION,
    },
  },
  Me: { endpoint: 'authControllerMe', arg: undefined, path: '/api/admin/me', body: meOf('admin') },
  Sessions: { endpoint: 'sessionsControllerList', arg: undefined, path: '/api/admin/sessions', body: [] },
  Webhooks: { endpoint: 'webhookControllerList', arg: undefined, path: '/api/webhooks', body: [] },
  ApiTokens: { endpoint: 'apiTokensControllerList', arg: undefined, path: '/api/admin/api-tokens', body: [] },
};

/** What each mutation is called with (an id where none is listed). */
const ARGS: Partial<Record<Change, unknown>> = {
  productControllerCreate: { name: 'Office 2024' },
  productControllerUpdate: { id: 'p1', updateProductDto: { emailSubject: 'S', emailTemplate: 'T' } },
  productControllerTestEmail: {
    id: 'p1',
    testEmailDto: { to: 'a@example.com', emailSubject: 'S', emailTemplate: 'T' },
  },
  voucherControllerDeleteMany: { id: 'p1', deleteVoucherCodesDto: { deleteType: 'all-unredeemed' } },
  licenseKeyControllerCreate: {
    productId: 'p1',
    licenseKey: 'ABCDE-12345',
    downloadLink: 'https://x.test',
    licenseType: 'single-user',
  },
  licenseKeyControllerUpdate: { id: 'k1', updateLicenseKeyDto: { isActive: false } },
  redemptionAdminControllerAssign: {
    id: 'r1',
    assignLicenseDto: { licenseKey: 'ABCDE-12345', downloadLink: 'https://x.test' },
  },
  redemptionAdminControllerBulkAssign: {
    redemptionIds: ['r1'],
    licenseKey: 'ABCDE-12345',
    downloadLink: 'https://x.test',
  },
  redemptionAdminControllerBulkDelete: { redemptionIds: ['r1'] },
  redemptionMaintenanceControllerFixPending: undefined,
  redemptionMaintenanceControllerCleanup: undefined,
  webhookControllerCreate: { url: 'https://hooks.test', events: ['pool.low'] },
  apiTokensControllerCreate: { name: 'ERP', permissions: ['vouchers.view'], expiresInDays: 30 },
  marketplaceControllerCreate: { name: 'Shop', baseUrl: 'https://market.test', products: [] },
  marketplaceControllerUpdate: { id: 'm1', updateMarketplaceDto: { name: 'Shop' } },
  riskControllerSaveRules: {},
  riskControllerAdd: { kind: 'email', value: 'fraud@example.com' },
  authControllerLogin: { username: 'admin', password: 'password123' },
  authControllerLogout: undefined,
  authControllerChangePassword: { currentPassword: 'a', newPassword: 'b' },
  authControllerResetOperator: undefined,
  authControllerCreateShopManager: { username: 'shop', email: 'shop@example.com', password: 'password123' },
  authControllerSetupTwoFactor: { currentPassword: 'a' },
  authControllerEnableTwoFactor: { code: '123456' },
  authControllerDisableTwoFactor: { code: '123456' },
  authControllerRegenerateRecoveryCodes: { code: '123456' },
  sessionsControllerRevokeOthers: undefined,
  redemptionControllerRedeem: { 'Idempotency-Key': 'k'.repeat(22), redeemVoucherDto: { voucherCode: 'ABCD-1234' } },
  redemptionControllerResendOrderEmail: { voucherCode: 'ABCD-1234', email: 'a@example.com' },
  customerCentreControllerRequestAccess: { email: 'a@example.com' },
  customerCentreControllerOpenSession: { token: 'link-token' },
  customerCentreControllerErase: { confirm: true },
};

const endpoints = client.endpoints as unknown as Record<
  string,
  { initiate: (arg: unknown) => any; useMutation?: unknown }
>;
const mutationNames = Object.keys(endpoints).filter((name) => 'useMutation' in endpoints[name]);

let server: ReturnType<typeof fakeServer>;
afterEach(() => server?.restore());

function serve() {
  // Each change succeeds as the API declares it (status and body of its OpenAPI success response).
  server = fakeServer({
    ...Object.fromEntries(Object.values(PROBES).map((p) => [`GET ${p.path}`, () => ({ status: 200, body: p.body })])),
    'POST /api/*': declaredSuccess,
    'PUT /api/*': declaredSuccess,
    'PATCH /api/*': declaredSuccess,
    'DELETE /api/*': declaredSuccess,
  });
}

const reads = () =>
  Object.fromEntries(TAG_TYPES.map((tag) => [tag, server.of('GET', PROBES[tag].path).length])) as Record<
    TagType,
    number
  >;
const idle = (store: AppStore) => Object.values(store.getState().api.queries).every((q) => q?.status !== 'pending');

describe('the one table of what each change refreshes', () => {
  it('names a tag type for everything that can go stale, and every tag type has one', () => {
    expect(Object.values(TAG_OF).sort()).toEqual([...TAG_TYPES].sort());
  });

  it('has every mutation of the app, and only the non-RTK changes besides', () => {
    expect(mutationNames.length).toBeGreaterThan(25);
    expect(Object.keys(CHANGES).sort()).toEqual([...mutationNames, ...NOT_RTK].sort());
  });

  it("refreshes statistics, products and redemptions after every change of the console's data (docs/product.md §8.1)", () => {
    const dataChanges = (Object.keys(CHANGES) as Change[]).filter((c) =>
      invalidatesFor(c).some((t) => ['VoucherCodes', 'LicenseKeys', 'Stats', 'Products', 'Redemptions'].includes(t)),
    );
    expect(dataChanges.length).toBeGreaterThan(15);
    for (const change of dataChanges) {
      expect(invalidatesFor(change)).toEqual(expect.arrayContaining(['Stats', 'Products', 'Redemptions']));
    }
    expect(invalidatesFor('licenseKeyControllerUpdate')).toEqual(['Stats', 'Products', 'Redemptions', 'LicenseKeys']);
    expect(invalidatesFor('voucherControllerDeleteOne')).toEqual(['Stats', 'Products', 'Redemptions', 'VoucherCodes']);
  });

  it('the uploads and downloads outside RTK Query refresh from the table too', () => {
    const calls = sourceFiles(SRC).flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/api\.util\.invalidateTags\(([^)]*\)?)/g)].map(
        (m) => `${relative(SRC, file)}: ${m[1]}`,
      ),
    );
    // Real-time events (docs/product.md §5.8's own table in realtime.tsx) are not changes the console made.
    const changes = calls.filter((c) => !c.startsWith('features/admin/realtime.tsx'));
    expect(changes.sort()).toEqual(
      [
        "features/products/VoucherUpload.tsx: invalidatesFor('uploadVoucherCodes')",
        "features/redemptions/useRedemptionExports.ts: invalidatesFor('exportRedemptions')",
        "features/vouchers/VoidCodesDialog.tsx: invalidatesFor('voidVoucherCodes')",
      ].sort(),
    );
  });

  it.each(mutationNames)('%s refetches exactly the queries of its table entry', async (name) => {
    serve();
    const store = makeStore();
    const watched = TAG_TYPES.map((tag) => store.dispatch(endpoints[PROBES[tag].endpoint].initiate(PROBES[tag].arg)));
    await Promise.all(watched);
    const before = reads();
    expect(Object.values(before).every((n) => n === 1)).toBe(true);

    const mutation = store.dispatch(endpoints[name].initiate(name in ARGS ? ARGS[name as Change] : 'x1'));
    await mutation;
    expect(server.requests.filter((r) => r.method !== 'GET')).toHaveLength(1);
    await waitFor(() => expect(idle(store)).toBe(true));

    const after = reads();
    const refetched = TAG_TYPES.filter((tag) => after[tag] > before[tag]);
    expect(refetched.sort()).toEqual(invalidatesFor(name as Change).sort());
    watched.forEach((w) => w.unsubscribe());
  });
});
