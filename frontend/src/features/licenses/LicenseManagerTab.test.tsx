import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { PermissionsProbe, permissionsApplied } from '../../test/PermissionsProbe';
import { renderWithProviders } from '../../test/renderWithProviders';
import { adminServer, meOf, type AdminHandler } from '../redemptions/adminTestServer';
import { LicenseManagerTab } from './LicenseManagerTab';
import { usageStatusOf } from './licenseRules';
import type { LicenseKey, LicenseKeysPage } from './licensesApi';

let server: ReturnType<typeof adminServer>;

beforeEach(() => localStorage.setItem('adminToken', 'test-token'));
afterEach(() => {
  server?.restore();
  act(() => resetToasts());
  localStorage.clear();
  jest.useRealTimers();
});

const toasts = () => document.querySelector('[aria-label="Notifications (F8)"]')!;
const PRODUCTS = [
  {
    id: '11111111-1111-4111-8111-111111111111',
    name: 'Office 2024 Home & Business (Windows)',
    status: 'active',
    downloadLink: 'https://dl.example.com/hb.exe',
    isLicenseManaged: true,
  },
  {
    id: '22222222-2222-4222-8222-222222222222',
    name: 'Office 2024 Professional Plus (Windows)',
    status: 'active',
    downloadLink: 'https://dl.example.com/pp.exe',
    isLicenseManaged: true,
  },
];

let n = 0;
function aKey(licenseKey: string, overrides: Partial<LicenseKey> = {}): LicenseKey {
  n++;
  const key: LicenseKey = {
    id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    productId: PRODUCTS[1].id,
    productName: PRODUCTS[1].name,
    licenseKey,
    downloadLink: 'https://dl.example.com/pp.exe',
    licenseType: 'single-user',
    maxActivations: 1,
    currentActivations: 0,
    isActive: true,
    usageStatus: 'available',
    createdAt: `2025-09-${String(10 + n).padStart(2, '0')}T00:00:00Z`,
    updatedAt: '2025-09-20T00:00:00Z',
    ...overrides,
  };
  return { ...key, usageStatus: overrides.usageStatus ?? usageStatusOf(key) };
}

function pageOf(keys: LicenseKey[], pagination: Partial<LicenseKeysPage['pagination']> = {}): LicenseKeysPage {
  return {
    licenseKeys: keys,
    summary: { totalKeys: 12, active: 11, available: 6, partiallyUsed: 2, fullyUsed: 4 },
    pagination: {
      currentPage: 1,
      limit: 50,
      totalCount: keys.length,
      totalPages: 1,
      hasPreviousPage: false,
      hasNextPage: false,
      totalCountExact: true,
      ...pagination,
    },
  };
}

function open(
  keys: LicenseKey[],
  extra: Record<string, AdminHandler> = {},
  role: 'admin' | 'operator' | 'shop-manager' = 'admin',
) {
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    'GET /api/license-managed-products': () => ({ status: 200, body: PRODUCTS }),
    'GET /api/license-keys': () => ({ status: 200, body: pageOf(keys) }),
    ...extra,
  });
  return renderWithProviders(
    <>
      <LicenseManagerTab />
      <Toaster />
      <PermissionsProbe />
    </>,
  );
}

const rows = () => screen.getAllByTestId('license-key-row');

describe('License Manager tab', () => {
  it('shows the summary cards and the keys masked whole with asterisks, in usage order, with reveal', async () => {
    const keys = [
      aKey('FULLY-USED1-KEY01-ABCDE-ZZZZZ', { currentActivations: 1 }),
      aKey('AVAILKEY1234567', { licenseType: 'volume', maxActivations: 5 }),
      aKey('PARTL-USED2-KEY02', { licenseType: 'volume', maxActivations: 5, currentActivations: 2 }),
    ];
    const { user } = open(keys);
    await waitFor(() => expect(rows()).toHaveLength(3));
    expect(screen.getByRole('group', { name: 'Total Keys' })).toHaveTextContent('12');
    expect(screen.getByRole('group', { name: 'Active' })).toHaveTextContent('11');
    expect(screen.getByRole('group', { name: 'Fully Used' })).toHaveTextContent('4');
    expect(screen.getByRole('group', { name: 'Available' })).toHaveTextContent('6');

    const texts = rows().map((r) => within(r).getByTestId('license-key-text').textContent);
    expect(texts).toEqual(['*'.repeat(15), '*'.repeat(17), '*'.repeat(29)]);
    expect(rows().map((r) => within(r).getByText(/^(Available|Partially Used|Fully Used)$/).textContent)).toEqual([
      'Available',
      'Partially Used',
      'Fully Used',
    ]);
    expect(within(rows()[1]).getByText('Volume License')).toBeInTheDocument();
    expect(within(rows()[2]).getByText('Single User')).toBeInTheDocument();
    expect(document.body).not.toHaveTextContent('AVAILKEY1234567');

    await user.click(within(rows()[0]).getByRole('button', { name: 'Reveal license key' }));
    expect(within(rows()[0]).getByTestId('license-key-text')).toHaveTextContent('AVAILKEY1234567');
    await user.click(within(rows()[0]).getByRole('button', { name: 'Hide license key' }));
    expect(within(rows()[0]).getByTestId('license-key-text')).toHaveTextContent('*'.repeat(15));
  });

  it('shows an estimated total as one ("Showing 1-100 of about 150,000"), an exact one as the count', async () => {
    const keys = [aKey('ESTIM-12345-ABCDE')];
    open([], {
      'GET /api/license-keys': () => ({
        status: 200,
        body: pageOf(keys, {
          limit: 100,
          totalCount: 150000,
          totalPages: 1500,
          hasNextPage: true,
          totalCountExact: false,
        }),
      }),
    });
    const nav = await screen.findByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Showing 1-100 of about 150,000');
    server.restore();
    open([], {
      'GET /api/license-keys': () => ({
        status: 200,
        body: pageOf(keys, { limit: 100, totalCount: 250, totalPages: 3, hasNextPage: true, totalCountExact: true }),
      }),
    });
    await waitFor(() => expect(screen.getAllByRole('navigation', { name: 'Pagination' })).toHaveLength(2));
    expect(screen.getAllByRole('navigation', { name: 'Pagination' })[1]).toHaveTextContent('Showing 1-100 of 250');
  });

  it('the copy control copies the full key and shows the confirmation (its 2 s reset: useCopyKey.test)', async () => {
    const { user } = open([aKey('COPY1-KEY22-ABCDE')]);
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(within(rows()[0]).getByLabelText('Copy license key'));
    expect(await within(rows()[0]).findByLabelText('License key copied')).toBeInTheDocument();
    expect(await navigator.clipboard.readText()).toBe('COPY1-KEY22-ABCDE');
  });

  it('searches 500 ms after typing and filters by product', async () => {
    const { user } = open([aKey('SRCH1-KEY33-ABCDE')]);
    await waitFor(() => expect(rows()).toHaveLength(1));
    // The debounce runs on Jest's clock, so "not before 500 ms" holds however loaded the machine is.
    jest.useFakeTimers();
    const searches = () => server.of('GET', '/api/license-keys').filter((r) => r.query.has('search'));
    fireEvent.change(screen.getByRole('textbox', { name: 'Search license keys' }), { target: { value: ' key33 ' } });
    act(() => jest.advanceTimersByTime(499));
    expect(searches()).toEqual([]);
    act(() => jest.advanceTimersByTime(1));
    await waitFor(() => expect(server.of('GET', '/api/license-keys').at(-1)!.query.get('search')).toBe('key33'));
    jest.useRealTimers();
    await user.click(screen.getByRole('combobox', { name: 'Product' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All Products',
      PRODUCTS[0].name,
      PRODUCTS[1].name,
    ]);
    await user.click(screen.getByRole('option', { name: PRODUCTS[0].name }));
    await waitFor(() =>
      expect(server.of('GET', '/api/license-keys').at(-1)!.query.get('productId')).toBe(PRODUCTS[0].id),
    );
  });

  it('Batch Entry sends one create request per non-empty line and shows a result per line', async () => {
    const created: unknown[] = [];
    const { user } = open([], {
      'POST /api/license-keys': (req) => {
        const body = req.body as { licenseKey: string };
        created.push(body);
        if (body.licenseKey === 'BAD KEY') {
          return {
            status: 400,
            body: {
              statusCode: 400,
              message: 'License key must contain only uppercase letters, numbers, and hyphens',
              error: 'Bad Request',
            },
          };
        }
        return { status: 201, body: aKey(body.licenseKey.toUpperCase()) };
      },
    });
    await user.click(await screen.findByRole('button', { name: 'Add License Key' }));
    const form = screen.getByRole('form', { name: 'Add License Key' });
    await user.click(within(form).getByRole('combobox', { name: /Product/ }));
    await user.click(screen.getByRole('option', { name: PRODUCTS[1].name }));
    expect(within(form).getByRole('textbox', { name: /Download Link/ })).toHaveValue('https://dl.example.com/pp.exe');
    await user.click(within(form).getByRole('switch', { name: 'Batch Entry' }));
    fireEvent.change(within(form).getByRole('textbox', { name: 'License Keys (one per line)' }), {
      target: { value: 'AAAAA-11111\n\n   BBBBB-22222  \nBAD KEY\n  \n' },
    });
    expect(form).toHaveTextContent('3 key(s) to add');
    await user.click(within(form).getByRole('button', { name: 'Add 3 License Key(s)' }));

    const results = await within(form).findByRole('list', { name: 'Batch results' });
    const items = within(results).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      'AAAAA-11111Added AAAAA-11111',
      'BBBBB-22222Added BBBBB-22222',
      'BAD KEYLicense key must contain only uppercase letters, numbers, and hyphens',
    ]);
    expect(created).toEqual(
      ['AAAAA-11111', 'BBBBB-22222', 'BAD KEY'].map((licenseKey) => ({
        productId: PRODUCTS[1].id,
        licenseKey,
        downloadLink: 'https://dl.example.com/pp.exe',
        licenseType: 'single-user',
      })),
    );
    expect(within(form).getByRole('textbox', { name: 'License Keys (one per line)' })).toHaveValue('BAD KEY');
    expect(toasts()).toHaveTextContent('Failed to add license key');
    expect(toasts()).toHaveTextContent('1 of 3 license keys could not be added.');
  });

  it('Max Activations appears only for volume licences and is sent with them; a refused key says "Failed to add license key"', async () => {
    const { user } = open([], {
      'POST /api/license-keys': () => ({
        status: 409,
        body: { statusCode: 409, message: 'This license key already exists for this product', error: 'Conflict' },
      }),
    });
    await user.click(await screen.findByRole('button', { name: 'Add License Key' }));
    const form = screen.getByRole('form', { name: 'Add License Key' });
    expect(within(form).queryByRole('spinbutton', { name: 'Max Activations' })).not.toBeInTheDocument();
    await user.click(within(form).getByRole('button', { name: 'Add License Key' }));
    expect(within(form).getByText('Product is required')).toBeInTheDocument();
    expect(server.of('POST', '/api/license-keys')).toHaveLength(0);

    await user.click(within(form).getByRole('combobox', { name: /Product/ }));
    await user.click(screen.getByRole('option', { name: PRODUCTS[0].name }));
    await user.click(within(form).getByRole('combobox', { name: 'License Type' }));
    await user.click(screen.getByRole('option', { name: 'Volume License' }));
    const max = within(form).getByRole('spinbutton', { name: 'Max Activations' });
    expect(max).toHaveAttribute('min', '1');
    fireEvent.change(max, { target: { value: '25' } });
    fireEvent.change(within(form).getByRole('textbox', { name: 'License Key' }), {
      target: { value: 'vol-key-12345' },
    });
    await user.click(within(form).getByRole('button', { name: 'Add License Key' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to add license key'));
    expect(toasts()).toHaveTextContent('This license key already exists for this product');
    expect(server.of('POST', '/api/license-keys')[0].body).toEqual({
      productId: PRODUCTS[0].id,
      licenseKey: 'VOL-KEY-12345',
      downloadLink: 'https://dl.example.com/hb.exe',
      licenseType: 'volume',
      maxActivations: 25,
    });

    await user.click(within(form).getByRole('combobox', { name: 'License Type' }));
    await user.click(screen.getByRole('option', { name: 'Single User' }));
    expect(within(form).queryByRole('spinbutton', { name: 'Max Activations' })).not.toBeInTheDocument();
  });

  it('deactivates, and a refused delete says "Failed to delete license key" with the reason', async () => {
    const key = aKey('USED1-KEY44-ABCDE', { currentActivations: 1 });
    const { user } = open([key], {
      [`PUT /api/license-keys/${key.id}`]: (req) => ({ status: 200, body: { ...key, ...(req.body as object) } }),
      [`DELETE /api/license-keys/${key.id}`]: () => ({
        status: 409,
        body: {
          statusCode: 409,
          message:
            'This license key has been assigned to 1 redemption(s) and cannot be deleted. Deactivate it instead.',
          error: 'Conflict',
        },
      }),
    });
    await waitFor(() => expect(rows()).toHaveLength(1));
    await user.click(await within(rows()[0]).findByRole('switch', { name: /^Deactivate/ }));
    await waitFor(() => expect(server.of('PUT', `/api/license-keys/${key.id}`)).toHaveLength(1));
    expect(server.of('PUT', `/api/license-keys/${key.id}`)[0].body).toEqual({ isActive: false });

    await user.click(within(rows()[0]).getByRole('button', { name: /^Delete/ }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to delete license key'));
    expect(toasts()).toHaveTextContent('cannot be deleted. Deactivate it instead.');
  });

  it('without licenses.manage there is no add, toggle or delete', async () => {
    open([aKey('VIEW1-ONLY5-ABCDE')], {}, 'shop-manager');
    await waitFor(() => expect(rows()).toHaveLength(1));
    await permissionsApplied('shop-manager');
    expect(screen.queryByRole('button', { name: 'Add License Key' })).not.toBeInTheDocument();
    expect(screen.queryByRole('switch', { name: /Deactivate/ })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
  });
});
