import { act, screen, waitFor, within } from '@testing-library/react';
import { MemoryRouter } from 'react-router-dom';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { PermissionsProbe, permissionsApplied } from '../../test/PermissionsProbe';
import { renderWithProviders } from '../../test/renderWithProviders';
import { installAdminSession } from '../auth/session';
import { adminServer, meOf, PRODUCT, signIn } from '../admin/adminTesting';
import { ProductsTab } from './ProductsTab';
import type { Product } from './productsApi';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const MAC: Product = {
  ...PRODUCT,
  id: '44444444-4444-4444-8444-444444444444',
  name: 'Office 2024 Home & Business (Mac)',
  isLicenseManaged: false,
  downloadLink: 'https://go.microsoft.com/fwlink/?linkid=2009112',
};
const PACKAGE = 'https://downloads.example.com/mac/licence-package.pkg';

function render(
  role: 'admin' | 'shop-manager',
  put: (body: Record<string, unknown>) => { status: number; body: unknown },
) {
  let product = { ...MAC };
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    'GET /api/products': () => ({ status: 200, body: [PRODUCT, product] }),
    'GET /api/license-pool/forecast': () => ({ status: 200, body: [] }),
    [`PUT /api/products/${MAC.id}`]: (req) => {
      const answer = put(req.body as Record<string, unknown>);
      if (answer.status === 200) product = answer.body as Product;
      return answer;
    },
  });
  signIn();
  installAdminSession();
  return renderWithProviders(
    <MemoryRouter>
      <ProductsTab />
      <PermissionsProbe />
      <Toaster />
    </MemoryRouter>,
  );
}

describe('Package Links of a Mac product (docs/product.md §12.7)', () => {
  it("warns while the link is missing, shows the server's message for a bad link, then saves a good one", async () => {
    const { user } = render('admin', (body) =>
      String(body.activationLink).startsWith('https://')
        ? { status: 200, body: { ...MAC, activationLink: body.activationLink, removalToolLink: null } }
        : {
            status: 400,
            body: {
              statusCode: 400,
              error: 'Bad Request',
              message: 'Must be an HTTPS URL',
              errors: [{ field: 'activationLink', message: 'Must be an HTTPS URL' }],
            },
          },
    );
    const card = await screen.findByRole('region', { name: MAC.name });
    await permissionsApplied('admin');
    expect(within(card).getByText(/No licence package link: Mac customers cannot activate/)).toBeInTheDocument();
    // Only the Mac product has package links.
    expect(
      within(screen.getByRole('region', { name: PRODUCT.name })).queryByRole('button', { name: 'Package Links' }),
    ).toBeNull();

    await user.click(within(card).getByRole('button', { name: 'Package Links' }));
    const dialog = await screen.findByRole('dialog', { name: `Package Links - ${MAC.name}` });
    const field = within(dialog).getByRole('textbox', { name: 'Licence package link (License Activation)' });
    await user.type(field, 'http://downloads.example.com/mac/licence-package.pkg');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await within(dialog).findByText('Must be an HTTPS URL');
    expect(field).toHaveAttribute('aria-invalid', 'true');
    expect(await screen.findByText('Update Failed')).toBeInTheDocument();

    await user.clear(field);
    await user.type(field, `  ${PACKAGE} `);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await screen.findByText('Package Links Updated');
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const puts = server.of('PUT', `/api/products/${MAC.id}`);
    expect(puts.map((r) => r.body)).toEqual([
      { activationLink: 'http://downloads.example.com/mac/licence-package.pkg', removalToolLink: '' },
      { activationLink: PACKAGE, removalToolLink: '' },
    ]);
    await waitFor(() =>
      expect(within(card).queryByText(/No licence package link: Mac customers cannot activate/)).toBeNull(),
    );
  });

  it('is not offered without products.edit', async () => {
    render('shop-manager', () => ({ status: 500, body: {} }));
    const card = await screen.findByRole('region', { name: MAC.name });
    await permissionsApplied('shop-manager');
    expect(within(card).queryByRole('button', { name: 'Package Links' })).toBeNull();
  });
});
