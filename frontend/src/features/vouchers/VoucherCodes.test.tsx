import { act, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { renderRoutes, renderWithProviders } from '../../test/renderWithProviders';
import { PUBLIC_CONFIG } from '../../test/fakeServer';
import { client } from '../../api';
import { installAdminSession } from '../auth/session';
import { VoucherCodesModal } from './VoucherCodesModal';
import {
  adminRoutes,
  adminServer,
  codesPage,
  meOf,
  PRODUCT,
  signIn,
  STATS,
  type AdminHandler,
} from '../admin/adminTesting';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

/** 120 unredeemed + 3 redeemed codes; the list answers the page asked for. */
function calls(
  role: 'admin' | 'operator',
  totals = { all: 123, unredeemed: 120, redeemed: 3 },
  totalCountExact = true,
): Record<string, AdminHandler> {
  return {
    'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }),
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    'GET /api/products': () => ({ status: 200, body: [PRODUCT] }),
    [`GET /api/products/${PRODUCT.id}`]: () => ({ status: 200, body: PRODUCT }),
    'GET /api/stats/*': () => ({ status: 200, body: STATS }),
    [`GET /api/products/${PRODUCT.id}/voucher-codes-detailed`]: (req) => {
      const redeemedOnly = req.query.get('redeemedOnly');
      const total =
        redeemedOnly === 'true' ? totals.redeemed : redeemedOnly === 'false' ? totals.unredeemed : totals.all;
      const limit = Number(req.query.get('limit'));
      const offset = (Number(req.query.get('page')) - 1) * limit;
      return { status: 200, body: codesPage(offset, limit, total, redeemedOnly === 'true', 5, totalCountExact) };
    },
    [`GET /api/products/${PRODUCT.id}/batches`]: () => ({ status: 200, body: [] }),
    'DELETE /api/products/*': (req) => ({
      status: 200,
      body: {
        message: `${(req.body as { voucherCodeIds?: string[] }).voucherCodeIds?.length ?? 120} voucher codes deleted.`,
        deletedCount: 2,
        skippedCount: 0,
      },
    }),
  };
}

const listCalls = () =>
  server.requests.filter((r) => r.path.endsWith('voucher-codes-detailed')).map((r) => Object.fromEntries(r.query));

async function openModal(
  role: 'admin' | 'operator' = 'admin',
  totals?: { all: number; unredeemed: number; redeemed: number },
  totalCountExact = true,
) {
  server = adminServer(calls(role, totals, totalCountExact));
  signIn();
  installAdminSession();
  const view = renderWithProviders(
    <>
      <VoucherCodesModal product={PRODUCT} open onClose={() => undefined} />
      <Toaster />
    </>,
  );
  // Permissions come from the me call: wait until the role's controls are known.
  await waitFor(() => expect(server.requests.some((r) => r.path === '/api/admin/me')).toBe(true));
  const dialog = await screen.findByRole('dialog');
  await within(dialog).findByText('CODE-00000');
  await act(async () => {
    await view.store.dispatch(client.endpoints.authControllerMe.initiate());
  });
  return { ...view, dialog };
}

describe('voucher codes modal', () => {
  it('pages 50 codes at a time with "Showing X-Y of N codes" and "Page N of M"', async () => {
    const { user, dialog } = await openModal();
    expect(within(dialog).getByText('Voucher Codes - ' + PRODUCT.name)).toBeInTheDocument();
    expect(within(dialog).getByTestId('modal-total')).toHaveTextContent('123 total');
    expect(within(dialog).getByText('Showing 1-50 of 123 codes')).toBeInTheDocument();
    expect(within(dialog).getByText('Page 1 of 3')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(within(dialog).getByRole('button', { name: 'Next' }));
    await within(dialog).findByText('CODE-00050');
    expect(within(dialog).getByText('Showing 51-100 of 123 codes')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Next' }));
    await within(dialog).findByText('CODE-00100');
    expect(within(dialog).getByText('Showing 101-123 of 123 codes')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(listCalls().map((q) => q.page)).toEqual(['1', '2', '3']);
    expect(listCalls().every((q) => q.limit === '50' && !('redeemedOnly' in q) && !('search' in q))).toBe(true);
  });

  it('shows an estimated total as one: "about 150,000 total", "of about 150,000 codes", "Page 1 of about 3,000"', async () => {
    const { dialog } = await openModal('admin', { all: 150000, unredeemed: 149000, redeemed: 1000 }, false);
    expect(within(dialog).getByTestId('modal-total')).toHaveTextContent('about 150,000 total');
    expect(within(dialog).getByText('Showing 1-50 of about 150,000 codes')).toBeInTheDocument();
    expect(within(dialog).getByText('Page 1 of about 3,000')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Next' })).toBeEnabled();
  });

  it('switching tab goes back to page 1 and clears the selection', async () => {
    const { user, dialog } = await openModal();
    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    await within(dialog).findByText('Page 1 of 3');
    await user.click(within(dialog).getByRole('button', { name: 'Next' }));
    await within(dialog).findByText('CODE-00050');
    await user.click(within(dialog).getByRole('checkbox', { name: 'Select CODE-00050' }));
    await user.click(within(dialog).getByRole('checkbox', { name: 'Select CODE-00051' }));
    expect(within(dialog).getByRole('button', { name: 'Delete Selected (2)' })).toBeEnabled();

    await user.click(within(dialog).getByRole('tab', { name: 'Redeemed' }));
    await within(dialog).findByText('Page 1 of 1');
    expect(listCalls().at(-1)).toMatchObject({ page: '1', redeemedOnly: 'true' });
    expect(
      within(dialog)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Voucher Code', 'Status', 'Redeemed By', 'Redemption Date']);
    expect(within(dialog).getAllByText('Ann Lee')).toHaveLength(3);

    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    await within(dialog).findByText('Page 1 of 3');
    expect(within(dialog).getByText('CODE-00000')).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Delete Selected' })).toBeDisabled();
    expect(within(dialog).getByRole('checkbox', { name: 'Select CODE-00000' })).not.toBeChecked();
  });

  it('lets an admin select all unredeemed codes of the page, delete them and export; an operator cannot export', async () => {
    const { user, dialog } = await openModal('admin');
    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    await within(dialog).findByText('Page 1 of 3');
    expect(within(dialog).getByRole('button', { name: 'Export Codes' })).toBeInTheDocument();
    await user.click(within(dialog).getByRole('checkbox', { name: 'Select all unredeemed codes on this page' }));
    await user.click(within(dialog).getByRole('button', { name: 'Delete Selected (5)' }));
    const confirm = screen.getAllByRole('dialog').at(-1)!;
    expect(confirm).toHaveTextContent(
      'Are you sure you want to delete 5 voucher code(s)? This action cannot be undone.',
    );
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('Deleted')).toBeInTheDocument();
    const del = server.requests.find((r) => r.method === 'DELETE')!;
    expect(del.path).toBe(`/api/products/${PRODUCT.id}/voucher-codes`);
    expect(del.body).toMatchObject({ deleteType: 'selected' });
    expect((del.body as { voucherCodeIds: string[] }).voucherCodeIds).toHaveLength(5);
  });

  it('"No Data" when there is nothing to export; an expired token is renewed once first', async () => {
    const { user, dialog } = await openModal('admin');
    server.restore();
    server = adminServer({
      ...calls('admin'),
      'GET /api/export/unredeemed-vouchers': (req) =>
        req.auth === 'Bearer access-2'
          ? { status: 404, body: { statusCode: 404, message: 'No unredeemed voucher codes found', error: 'Not Found' } }
          : { status: 401, body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' } },
      'POST /api/admin/refresh': () => ({
        status: 200,
        body: { accessToken: 'access-2', refreshToken: 'refresh-2', requiresTwoFactor: false },
      }),
    });
    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    await user.click(await within(dialog).findByRole('button', { name: 'Export Codes' }));
    expect(await screen.findByText('No Data')).toBeInTheDocument();
    expect(screen.getByText('No unredeemed voucher codes found to export.')).toBeInTheDocument();
    const exports = server.requests.filter((r) => r.path === '/api/export/unredeemed-vouchers');
    expect(exports.map((r) => r.auth)).toEqual(['Bearer access-1', 'Bearer access-2']);
    expect(Object.fromEntries(exports[0].query)).toEqual({ productId: PRODUCT.id, format: 'csv' });
  });

  it('hides Export Codes from an operator', async () => {
    const { user, dialog } = await openModal('operator');
    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    await within(dialog).findByText('Page 1 of 3');
    expect(within(dialog).getByRole('button', { name: 'Delete All Unredeemed' })).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Export Codes' })).not.toBeInTheDocument();
  });

  it('shows the empty messages of docs/product.md §3.12', async () => {
    const { user, dialog } = await openModal('admin', { all: 1, unredeemed: 0, redeemed: 0 });
    await user.click(within(dialog).getByRole('tab', { name: 'Unredeemed' }));
    expect(await within(dialog).findByText('No unredeemed codes found')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('tab', { name: 'Redeemed' }));
    expect(await within(dialog).findByText('No redeemed voucher codes found')).toBeInTheDocument();
  });
});

describe('voucher codes modal: the Void tab', () => {
  it('lists void codes (status=void) as "Void" with their void date, never selectable or deletable', async () => {
    const { user, dialog } = await openModal('admin');
    server.restore();
    server = adminServer({
      ...calls('admin'),
      [`GET /api/products/${PRODUCT.id}/voucher-codes-detailed`]: (req) => {
        if (req.query.get('status') !== 'void') return { status: 200, body: codesPage(0, 50, 123) };
        const page = codesPage(0, 50, 2, false, 2);
        return {
          status: 200,
          body: {
            ...page,
            codes: page.codes.map((c) => ({ ...c, status: 'void', voidedAt: '2026-11-03T10:00:00.000Z' })),
          },
        };
      },
    });
    await user.click(within(dialog).getByRole('tab', { name: 'Void' }));
    await within(dialog).findByText('Showing 1-2 of 2 codes');
    expect(listCalls().at(-1)).toMatchObject({ page: '1', status: 'void' });
    expect(listCalls().at(-1)).not.toHaveProperty('redeemedOnly');
    expect(
      within(dialog)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Voucher Code', 'Status', 'Created Date', 'Voided Date']);
    expect(within(dialog).getAllByText('Void', { selector: '.MuiChip-label' })).toHaveLength(2);
    expect(within(dialog).queryByRole('checkbox')).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });

  it('says so when there is no void code', async () => {
    const { user, dialog } = await openModal('admin');
    server.restore();
    server = adminServer({
      ...calls('admin'),
      [`GET /api/products/${PRODUCT.id}/voucher-codes-detailed`]: (req) => ({
        status: 200,
        body: codesPage(0, 50, req.query.get('status') === 'void' ? 0 : 123),
      }),
    });
    await user.click(within(dialog).getByRole('tab', { name: 'Void' }));
    expect(await within(dialog).findByText('No void codes found')).toBeInTheDocument();
  });
});

describe('voucher codes page', () => {
  async function openPage(total: number, totalCountExact = true) {
    server = adminServer(calls('admin', { all: total, unredeemed: total, redeemed: 0 }, totalCountExact));
    signIn();
    const view = renderRoutes(adminRoutes(), `/admin/voucher-codes/${PRODUCT.id}`);
    await screen.findByRole('heading', { name: `Voucher Codes - ${PRODUCT.name}` });
    await screen.findByText('CODE-00000');
    return view;
  }
  const pageButtons = () =>
    within(screen.getByRole('navigation', { name: 'Pages' }))
      .getAllByRole('button', { name: /^Page \d+$/ })
      .map((b) => b.textContent);

  it('shows every page number up to 7 pages', async () => {
    await openPage(700);
    expect(screen.getByText('Page 1 of 7')).toBeInTheDocument();
    expect(pageButtons()).toEqual(['1', '2', '3', '4', '5', '6', '7']);
  });

  it('uses ellipses past 7 pages (first, last and the neighbours of the current page) and loads 100 codes a page by page number', async () => {
    const { user } = await openPage(2000);
    expect(screen.getByText('Page 1 of 20')).toBeInTheDocument();
    expect(pageButtons()).toEqual(['1', '2', '3', '4', '5', '20']);
    await user.click(screen.getByRole('button', { name: 'Page 20' }));
    await screen.findByText('CODE-01900');
    expect(pageButtons()).toEqual(['1', '16', '17', '18', '19', '20']);
    await user.click(screen.getByRole('button', { name: 'Page 17' }));
    await screen.findByText('CODE-01600');
    expect(pageButtons()).toEqual(['1', '16', '17', '18', '19', '20']);
    await user.click(screen.getByRole('button', { name: 'Page 16' }));
    await screen.findByText('CODE-01500');
    expect(pageButtons()).toEqual(['1', '15', '16', '17', '20']);
    expect(listCalls().map((q) => [q.limit, q.page])).toEqual([
      ['100', '1'],
      ['100', '20'],
      ['100', '17'],
      ['100', '16'],
    ]);
  });

  it('an estimated total reads "Page 1 of about 1,500" and offers no last page (it is a guess)', async () => {
    await openPage(150000, false);
    expect(screen.getByText('Page 1 of about 1,500')).toBeInTheDocument();
    expect(pageButtons()).toEqual(['1', '2', '3', '4', '5']);
    expect(screen.queryByText('Page 1 of 1500')).not.toBeInTheDocument();
  });

  it('searches on Enter with the trimmed text and starts again at page 1', async () => {
    const { user } = await openPage(2000);
    await user.click(screen.getByRole('button', { name: 'Page 3' }));
    await screen.findByText('CODE-00200');
    await user.click(screen.getByLabelText('Search codes'));
    await user.paste('  abc  ');
    await user.keyboard('{Enter}');
    await screen.findByText('CODE-00000');
    expect(listCalls().at(-1)).toMatchObject({ page: '1', search: 'abc' });
    expect(screen.getByText('Page 1 of 20')).toBeInTheDocument();
  });

  it('says "Invalid product ID" for a missing or malformed id', async () => {
    server = adminServer(calls('admin'));
    signIn();
    renderRoutes(adminRoutes(), '/admin/voucher-codes/');
    expect(await screen.findByText('Invalid product ID')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Back to Admin' })).toHaveAttribute('href', '/admin');
    expect(server.requests.some((r) => r.path.includes('voucher-codes-detailed'))).toBe(false);
  });
});
