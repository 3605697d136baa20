import { act, screen, waitFor, within } from '@testing-library/react';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer } from '../../test/fakeServer';
import { renderWithProviders } from '../../test/renderWithProviders';
import { ApiTokensCard } from './ApiTokensCard';
import type { ApiToken } from './apiTokensApi';

let server: ReturnType<typeof fakeServer>;
afterEach(() => {
  server?.restore();
  act(() => resetToasts());
});

const EXISTING: ApiToken = {
  id: '11111111-1111-4111-8111-111111111111',
  name: 'Shop integration',
  permissions: ['vouchers.view'],
  createdAt: '2026-01-02T10:00:00.000Z',
  expiresAt: '2099-01-02T10:00:00.000Z',
  lastUsedAt: null,
  createdBy: 'admin',
};
const TOKEN = `ovr_${'a'.repeat(43)}`;

describe('Settings → API tokens', () => {
  it('creates a token with the chosen permissions and shows it once; revokes one after confirmation', async () => {
    let tokens: ApiToken[] = [EXISTING];
    server = fakeServer({
      'GET /api/admin/api-tokens': () => ({ status: 200, body: tokens }),
      'POST /api/admin/api-tokens': (req) => {
        const body = req.body as { name: string; permissions: string[] };
        tokens = [
          { ...EXISTING, id: '22222222-2222-4222-8222-222222222222', name: body.name, permissions: body.permissions },
          ...tokens,
        ];
        return {
          status: 201,
          body: {
            id: tokens[0].id,
            name: body.name,
            token: TOKEN,
            permissions: body.permissions,
            expiresAt: EXISTING.expiresAt,
          },
        };
      },
      'DELETE /api/admin/api-tokens/*': () => {
        tokens = tokens.filter((t) => t.id !== EXISTING.id);
        return { status: 200, body: { success: true } };
      },
    });
    const { user } = renderWithProviders(<ApiTokensCard />);
    const existing = await screen.findByRole('article', { name: 'API token Shop integration' });
    expect(within(existing).getByText('vouchers.view')).toBeInTheDocument();
    expect(within(existing).getByText(/by admin .* last used never/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Create token' }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API token' });
    const submit = within(dialog).getByRole('button', { name: 'Create token' });
    expect(submit).toBeDisabled();
    await user.click(within(dialog).getByLabelText(/Name/));
    await user.paste('Export job');
    await user.click(within(dialog).getByLabelText('export.redeemed-vouchers'));
    await user.click(submit);

    const shown = await screen.findByRole('dialog', { name: 'API token created' });
    expect(within(shown).getByTestId('api-token-value')).toHaveTextContent(TOKEN);
    expect(within(shown).getByRole('button', { name: 'Copy token' })).toBeInTheDocument();
    expect(server.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
      { name: 'Export job', permissions: ['export.redeemed-vouchers'], expiresInDays: 90 },
    ]);
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText(TOKEN)).not.toBeInTheDocument());
    expect(await screen.findByRole('article', { name: 'API token Export job' })).toBeInTheDocument();

    await user.click(within(existing).getByRole('button', { name: /API token Shop integration/ }));
    const confirm = await screen.findByRole('dialog', { name: 'Revoke API token' });
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    await waitFor(() =>
      expect(screen.queryByRole('article', { name: 'API token Shop integration' })).not.toBeInTheDocument(),
    );
    expect(server.requests.find((r) => r.method === 'DELETE')?.path).toBe(`/api/admin/api-tokens/${EXISTING.id}`);
  });
});
