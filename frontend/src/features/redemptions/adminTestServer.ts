/**
 * Test data of the admin tabs in the API's JSON shapes, and the shared admin test edge. The real API is
 * exercised by test/browser/admin-redemptions.browser-spec.ts.
 */
import type { AdminRedemption, RedemptionsPage } from './redemptionsApi';

export { adminServer, meOf } from '../admin/adminTesting';
export type { AdminHandler, AdminRequest } from '../admin/adminTesting';

/** The Windows product every test redemption belongs to. */
export const P_WIN = '22222222-2222-4222-8222-222222222222';
let seq = 0;
export function aRedemption(overrides: Partial<AdminRedemption> & { code?: string } = {}): AdminRedemption {
  seq++;
  const { code = `CODE-${String(seq).padStart(4, '0')}`, ...rest } = overrides;
  return {
    id: `00000000-0000-4000-8000-${String(seq).padStart(12, '0')}`,
    voucherCodeId: `00000000-0000-4000-9000-${String(seq).padStart(12, '0')}`,
    customerId: `00000000-0000-4000-b000-${String(seq).padStart(12, '0')}`,
    productId: P_WIN,
    voucherCode: { id: `00000000-0000-4000-9000-${String(seq).padStart(12, '0')}`, code },
    customer: {
      id: `00000000-0000-4000-b000-${String(seq).padStart(12, '0')}`,
      firstName: 'Ann',
      lastName: `Lee${seq}`,
      email: `ann${seq}@example.com`,
      phone: '+1 302 555 0100',
      country: 'US',
      zipCode: null,
    },
    product: { id: P_WIN, name: 'Office 2024 Professional Plus (Windows)' },
    emailStatus: 'pending',
    isManualProcessing: false,
    redeemedAt: '2025-09-01T10:00:00.000Z',
    exported: false,
    exportedAt: null,
    refundedAt: null,
    heldForReview: false,
    erasedAt: null,
    assignedLicenseKey: null,
    ...rest,
  };
}

/** A page of the list; `totalCountExact: false` makes `totalCount` an estimate, as the server answers beyond its exact-count limit. */
export function pageOf(
  redemptions: AdminRedemption[],
  { page = 1, limit = 50, totalCount = redemptions.length, totalCountExact = true } = {},
): RedemptionsPage {
  const totalPages = Math.ceil(totalCount / limit);
  return {
    redemptions,
    pagination: {
      currentPage: page,
      limit,
      totalCount,
      totalPages,
      hasPreviousPage: page > 1,
      hasNextPage: page < totalPages,
      totalCountExact,
    },
  };
}
