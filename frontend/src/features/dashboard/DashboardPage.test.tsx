import { act, screen, waitFor, within } from '@testing-library/react';
import { resetToasts } from '../../components/toast/toastStore';
import { renderRoutes } from '../../test/renderWithProviders';
import { adminRoutes, adminServer, meOf, PRODUCT, signIn, STATS, type AdminHandler } from '../admin/adminTesting';
import { PUBLIC_CONFIG } from '../../test/fakeServer';
import { pageOf } from '../redemptions/adminTestServer';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

function calls(role: 'admin' | 'operator' | 'shop-manager'): Record<string, AdminHandler> {
  return {
    'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }),
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    'GET /api/products': () => ({
      status: 200,
      body: [
        PRODUCT,
        {
          ...PRODUCT,
          id: '22222222-2222-4222-8222-222222222222',
          name: 'Office 2024 Home & Business (Mac)',
          isLicenseManaged: false,
          status: 'inactive',
        },
      ],
    }),
    'GET /api/license-pool/forecast': () => ({ status: 200, body: [forecastOf({ daysLeft: 22 })] }),
    'GET /api/stats/*': (req) => ({
      status: 200,
      body: { ...STATS, period: req.path.split('/').pop(), timeRange: `Range ${req.path.split('/').pop()}` },
    }),
    'POST /api/admin/logout': () => ({ status: 200, body: { success: true } }),
  };
}

function forecastOf(overrides: Record<string, unknown> = {}) {
  return {
    productId: PRODUCT.id,
    productName: PRODUCT.name,
    availableActivations: 45,
    redeemedLast7Days: 14,
    perDay: 2,
    daysLeft: 22,
    low: false,
    lowReason: null,
    waitingCustomers: 0,
    ...overrides,
  };
}

async function openDashboard(role: 'admin' | 'operator' | 'shop-manager', extra: Record<string, AdminHandler> = {}) {
  server = adminServer({ ...calls(role), ...extra });
  signIn();
  const view = renderRoutes(adminRoutes(), '/admin');
  await screen.findByRole('heading', { name: 'Admin Dashboard' });
  await screen.findByRole('region', { name: PRODUCT.name });
  return view;
}

const tabNames = () => screen.getAllByRole('tab').map((t) => t.textContent);

describe('admin dashboard', () => {
  it('shows the days of keys left on a licence-managed product card, in the warning colour when the pool is low', async () => {
    await openDashboard('shop-manager');
    const card = screen.getByRole('region', { name: PRODUCT.name });
    const line = await within(card).findByTestId('pool-forecast');
    expect(line).toHaveTextContent('≈ 22 days of keys left');
    expect(line).toHaveTextContent('45 activations available in the key pool');
    expect(line).toHaveAttribute('data-low', 'false');
    // The Mac product takes no keys: no forecast line.
    expect(
      within(screen.getByRole('region', { name: 'Office 2024 Home & Business (Mac)' })).queryByTestId('pool-forecast'),
    ).not.toBeInTheDocument();
  });

  it('says when nothing was redeemed in the last 7 days, and warns about a low pool', async () => {
    await openDashboard('admin', {
      'GET /api/license-pool/forecast': () => ({
        status: 200,
        body: [
          forecastOf({
            availableActivations: 1,
            redeemedLast7Days: 0,
            perDay: 0,
            daysLeft: null,
            low: true,
            lowReason: 'fewer than 50 activations available (POOL_ALERT_MIN)',
          }),
        ],
      }),
    });
    const line = await within(screen.getByRole('region', { name: PRODUCT.name })).findByTestId('pool-forecast');
    expect(line).toHaveTextContent('no redemptions in the last 7 days');
    expect(line).toHaveTextContent('1 activation available in the key pool');
    expect(line).toHaveAttribute('data-low', 'true');
    expect(within(line).getByText('no redemptions in the last 7 days')).toHaveStyle({ color: '#b45309' });
  });

  it('shows an admin the five tabs, the header buttons and Reset Operator', async () => {
    await openDashboard('admin');
    expect(tabNames()).toEqual(['Products', 'License Manager', 'Recent Redemptions', 'Exported Vouchers', 'Settings']);
    for (const name of ['Change Password', 'Reset Operator', 'Logout']) {
      expect(screen.getByRole('button', { name })).toBeInTheDocument();
    }
    expect(screen.getByRole('link', { name: 'Customer View' })).toHaveAttribute('href', '/');
    // Issue 16: the Security screen opens from beside Change Password.
    expect(screen.getByRole('link', { name: 'Security' })).toHaveAttribute('href', '/admin/security');
  });

  it('hides Settings and Reset Operator from an operator (4 tabs)', async () => {
    await openDashboard('operator');
    expect(tabNames()).toEqual(['Products', 'License Manager', 'Recent Redemptions', 'Exported Vouchers']);
    expect(screen.queryByRole('button', { name: 'Reset Operator' })).not.toBeInTheDocument();
    // Operators may upload codes and edit templates.
    const card = screen.getByRole('region', { name: PRODUCT.name });
    expect(within(card).getByRole('button', { name: 'Upload Codes' })).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Email Template' })).toBeInTheDocument();
  });

  it('shows a role without edit rights no upload and no template editor', async () => {
    await openDashboard('shop-manager');
    const card = screen.getByRole('region', { name: PRODUCT.name });
    expect(within(card).queryByRole('button', { name: 'Upload Codes' })).not.toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Email Template' })).not.toBeInTheDocument();
  });

  it('hides code lists and the licence pool from a shop manager (no vouchers.view, no licenses.view)', async () => {
    await openDashboard('shop-manager');
    expect(tabNames()).toEqual(['Products', 'Recent Redemptions', 'Exported Vouchers']);
    const card = screen.getByRole('region', { name: PRODUCT.name });
    expect(within(card).queryByRole('button', { name: 'View Voucher Codes' })).not.toBeInTheDocument();
    expect(within(card).queryByRole('link', { name: `Voucher codes page of ${PRODUCT.name}` })).not.toBeInTheDocument();
  });

  it('tells a shop manager who opens the voucher codes page that it is not for them, without asking for codes', async () => {
    server = adminServer(calls('shop-manager'));
    signIn();
    renderRoutes(adminRoutes(), `/admin/voucher-codes/${PRODUCT.id}`);
    expect(await screen.findByText('You do not have permission to view voucher codes.')).toBeInTheDocument();
    expect(server.requests.some((r) => r.path.includes('voucher-codes-detailed'))).toBe(false);
  });

  it('shows product cards with status and License Managed badges and code counts', async () => {
    await openDashboard('admin');
    const pro = screen.getByRole('region', { name: PRODUCT.name });
    expect(within(pro).getByText('Active')).toBeInTheDocument();
    expect(within(pro).getByText('License Managed')).toBeInTheDocument();
    expect(within(pro).getByText('120')).toBeInTheDocument();
    expect(within(pro).getByText('Unredeemed')).toBeInTheDocument();
    expect(within(pro).getByText('3')).toBeInTheDocument();
    const mac = screen.getByRole('region', { name: 'Office 2024 Home & Business (Mac)' });
    expect(within(mac).getByText('Inactive')).toBeInTheDocument();
    expect(within(mac).queryByText('License Managed')).not.toBeInTheDocument();
  });

  it("offers the seven periods and loads the stats of the chosen one, captioned with the selector's own label", async () => {
    const { user } = await openDashboard('admin');
    const total = screen.getByRole('generic', { name: 'Total Redemptions' });
    await waitFor(() => expect(screen.getByTestId('stat-Total Redemptions')).toHaveTextContent('4'));
    expect(total).toHaveTextContent(/Today$/);
    expect(screen.getByRole('img', { name: 'Daily redemptions: 4 over 1 day' })).toBeInTheDocument();
    await user.click(screen.getByRole('combobox', { name: 'Time Period' }));
    const options = screen.getAllByRole('option').map((o) => o.textContent);
    expect(options).toEqual([
      'Today',
      'Yesterday',
      'Last 7 Days',
      'Last 30 Days',
      'This Month',
      'Last Month',
      'All Time',
    ]);
    await user.click(screen.getByRole('option', { name: 'Last 30 Days' }));
    await waitFor(() => expect(server.requests.some((r) => r.path === '/api/stats/last30days')).toBe(true));
    // The server's `timeRange` (here "Range last30days") is not a second name for the period.
    await waitFor(() => expect(total).toHaveTextContent(/Last 30 Days$/));
    expect(screen.queryByText(/^Range /)).not.toBeInTheDocument();
  });

  it('switching between the lists renders the redemptions tab with showExported', async () => {
    const { user } = await openDashboard('admin');
    await user.click(screen.getByRole('tab', { name: 'Exported Vouchers' }));
    expect(screen.getByRole('tab', { name: 'Exported Vouchers' })).toHaveAttribute('aria-selected', 'true');
    expect(screen.getByRole('tabpanel')).toHaveAttribute('id', 'panel-exported');
    await user.click(screen.getByRole('tab', { name: 'Settings' }));
    expect(await screen.findByRole('heading', { name: 'Danger Zone' })).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'System Information' })).toBeInTheDocument();
  });

  it('Clean System runs only after the confirmation is typed', async () => {
    const { user } = await openDashboard('admin');
    server.restore();
    server = adminServer({
      ...calls('admin'),
      'DELETE /api/admin/cleanup-redeemed': () => ({
        status: 200,
        body: {
          success: true,
          message: 'System cleaned successfully',
          deleted: { voucherCodes: 5, customers: 2, redemptions: 2, licenseAssignments: 1 },
        },
      }),
    });
    await user.click(screen.getByRole('tab', { name: 'Settings' }));
    await user.click(await screen.findByRole('button', { name: 'Clean System' }));
    const dialog = screen.getByRole('dialog');
    expect(
      within(dialog).getByText(/all voucher codes, customers, redemptions and license assignments/),
    ).toBeInTheDocument();
    const confirm = within(dialog).getByRole('button', { name: 'Clean System' });
    expect(confirm).toBeDisabled();
    await user.click(within(dialog).getByLabelText('Confirmation'));
    await user.paste('clean system');
    expect(confirm).toBeDisabled();
    await user.clear(within(dialog).getByLabelText('Confirmation'));
    await user.paste('CLEAN SYSTEM');
    await user.click(confirm);
    expect(await screen.findByText('System Cleaned')).toBeInTheDocument();
    expect(server.requests.filter((r) => r.method === 'DELETE')).toHaveLength(1);
  });

  it('logout calls the server, clears the tokens and goes to /admin/login even when the call fails', async () => {
    server = adminServer({ ...calls('admin'), 'POST /api/admin/logout': () => ({ status: 500 }) });
    signIn();
    const { user, location } = renderRoutes(adminRoutes(), '/admin');
    await user.click(await screen.findByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(location.current.pathname).toBe('/admin/login'));
    expect(server.requests.some((r) => r.path === '/api/admin/logout' && r.auth === 'Bearer access-1')).toBe(true);
    expect([
      localStorage.getItem('adminToken'),
      localStorage.getItem('authToken'),
      localStorage.getItem('adminRefreshToken'),
    ]).toEqual([null, null, null]);
  });

  describe('docs/product.md §9.3 "All admin errors surface as toasts", list loads included', () => {
    const toasts = () => document.querySelector('[aria-label="Notifications (F8)"]')!;

    it('a failed products load toasts its title with the server message', async () => {
      server = adminServer({
        ...calls('admin'),
        'GET /api/products': () => ({
          status: 503,
          body: { statusCode: 503, message: 'The database is not reachable.', error: 'Service Unavailable' },
        }),
      });
      signIn();
      renderRoutes(adminRoutes(), '/admin');
      await waitFor(() => expect(toasts()).toHaveTextContent('Failed to load products'));
      expect(toasts()).toHaveTextContent('The database is not reachable.');
    });

    it('a failed redemptions load toasts, with docs/product.md §9.1\'s "{status}: {body}" when the body has no message', async () => {
      server = adminServer({
        ...calls('admin'),
        'GET /api/redemptions': () => ({ status: 500, body: 'upstream broke' }),
      });
      signIn();
      const { user } = renderRoutes(adminRoutes(), '/admin');
      await screen.findByRole('region', { name: PRODUCT.name });
      await user.click(screen.getByRole('tab', { name: 'Recent Redemptions' }));
      await waitFor(() => expect(toasts()).toHaveTextContent('Failed to load redemptions'));
      expect(toasts()).toHaveTextContent('500: upstream broke');
    });
  });

  it('polls the stats every 10 s (docs/product.md §10.4) and nothing else: the lists follow the socket', async () => {
    jest.useFakeTimers();
    try {
      server = adminServer({ ...calls('admin'), 'GET /api/redemptions': () => ({ status: 200, body: pageOf([]) }) });
      signIn();
      const { user } = renderRoutes(adminRoutes(), '/admin');
      await screen.findByRole('region', { name: PRODUCT.name });
      await user.click(screen.getByRole('tab', { name: 'Recent Redemptions' }));
      // The list, then (it is empty) the one question whether exported redemptions hide there (docs/product.md §3.17).
      await waitFor(() => expect(server.of('GET', '/api/redemptions')).toHaveLength(2));
      const reads = () => server.requests.filter((r) => r.method === 'GET').map((r) => r.path);
      const before = reads();
      await act(async () => {
        await jest.advanceTimersByTimeAsync(30_000);
      });
      const polled = reads().slice(before.length);
      expect(polled.length).toBeGreaterThanOrEqual(3);
      expect(new Set(polled)).toEqual(new Set(['/api/stats/today']));
    } finally {
      jest.useRealTimers();
    }
  });
});
