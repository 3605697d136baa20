/**
 * Test edge for the admin tabs: answers fetch with the API's JSON shapes and keeps every request with its
 * query string (the shared fakeServer keys on the path only). The real API is exercised by
 * test/browser/admin-redemptions.browser-spec.ts.
 */
import type { AdminRedemption, RedemptionsPage } from './redemptionsApi';

export interface AdminRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
}
export type AdminHandler = (req: AdminRequest) => { status: number; body?: unknown; headers?: Record<string, string> } | Promise<{ status: number; body?: unknown; headers?: Record<string, string> }>;

export function adminServer(handlers: Record<string, AdminHandler>) {
  const requests: AdminRequest[] = [];
  const original = globalThis.fetch;
  globalThis.fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(String(input), init);
    const url = new URL(request.url);
    const text = await request.text();
    const req: AdminRequest = { method: request.method, path: url.pathname, query: url.searchParams, body: text ? JSON.parse(text) : undefined };
    requests.push(req);
    const key = `${req.method} ${req.path}`;
    const handler =
      handlers[key] ??
      Object.entries(handlers).find(([pattern]) => {
        const [method, path] = pattern.split(' ');
        return method === req.method && path.endsWith('*') && req.path.startsWith(path.slice(0, -1));
      })?.[1];
    const answer = handler ? await handler(req) : { status: 404, body: { statusCode: 404, message: `Cannot ${key}`, error: 'Not Found' } };
    const body = answer.body === undefined ? null : typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body);
    return new Response(body, {
      status: answer.status,
      headers: { ...(answer.body === undefined || typeof answer.body === 'string' ? {} : { 'Content-Type': 'application/json' }), ...answer.headers },
    });
  };
  return {
    requests,
    of: (method: string, path: string) => requests.filter((r) => r.method === method && r.path === path),
    restore: () => {
      globalThis.fetch = original;
    },
  };
}

const ALL_PERMISSIONS = [
  'dashboard.view',
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
];
const NOT_FOR_OPERATOR = ['settings.access', 'system.cleanup', 'admin.reset-operator', 'admin.create-shop-manager', 'redemptions.delete', 'export.redeemed-data', 'export.unredeemed-vouchers', 'emails.fix-pending'];

/** GET /api/admin/me as DECISIONS §7 defines it. */
export function meOf(role: 'admin' | 'operator' | 'shop-manager') {
  const permissions = role === 'admin' ? ALL_PERMISSIONS : role === 'operator' ? ALL_PERMISSIONS.filter((p) => !NOT_FOR_OPERATOR.includes(p)) : [];
  return { id: `user-${role}`, username: role, email: `${role}@example.com`, role, permissions, twoFactorEnabled: false };
}

let seq = 0;
export function aRedemption(overrides: Partial<AdminRedemption> & { code?: string } = {}): AdminRedemption {
  seq++;
  const { code = `CODE-${String(seq).padStart(4, '0')}`, ...rest } = overrides;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    voucherCodeId: `v-${seq}`,
    customerId: `c-${seq}`,
    productId: 'p-win',
    voucherCode: { id: `v-${seq}`, code },
    customer: { id: `c-${seq}`, firstName: 'Ann', lastName: `Lee${seq}`, email: `ann${seq}@example.com`, phone: '+1 302 555 0100', country: 'US', zipCode: null },
    product: { id: 'p-win', name: 'Office 2024 Professional Plus (Windows)' },
    emailStatus: 'pending',
    isManualProcessing: false,
    redeemedAt: '2025-09-01T10:00:00.000Z',
    exported: false,
    exportedAt: null,
    assignedLicenseKey: null,
    ...rest,
  };
}

export function pageOf(redemptions: AdminRedemption[], { page = 1, limit = 50, totalCount = redemptions.length } = {}): RedemptionsPage {
  const totalPages = Math.ceil(totalCount / limit);
  return {
    redemptions,
    pagination: { currentPage: page, limit, totalCount, totalPages, hasPreviousPage: page > 1, hasNextPage: page < totalPages },
  };
}
