import { act, screen, waitFor, within } from '@testing-library/react';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer } from '../../test/fakeServer';
import { renderWithProviders } from '../../test/renderWithProviders';
import { MarketplacesCard } from './MarketplacesCard';

let server: ReturnType<typeof fakeServer>;
afterEach(() => {
  server?.restore();
  act(() => resetToasts());
});

const PRODUCT = {
  id: '33333333-3333-4333-8333-333333333333',
  name: 'Office 2024 Home & Business (Mac)',
  downloadLink: 'https://dl.example.com/mac',
  productKey: null,
  emailTemplate: '<p>{{download_link}}</p>',
  emailSubject: 'Your licence',
  status: 'active',
  isLicenseManaged: false,
  createdAt: '2026-01-01T10:00:00.000Z',
  updatedAt: '2026-01-01T10:00:00.000Z',
  unredeemedCount: 10,
  redeemedCount: 0,
  voidCount: 0,
  totalCount: 10,
};
const SECRET = `mksec_${'b'.repeat(43)}`;

describe('Settings → Marketplaces', () => {
  it('connects a marketplace and shows its secret once, then its reconciliation; retries its dead reports', async () => {
    let connections: Array<Record<string, unknown>> = [];
    let dead = 2;
    server = fakeServer({
      'GET /api/products': () => ({ status: 200, body: [PRODUCT] }),
      'GET /api/marketplaces': () => ({ status: 200, body: connections }),
      'POST /api/marketplaces': (req) => {
        const body = req.body as Record<string, unknown>;
        const created = {
          id: '44444444-4444-4444-8444-444444444444',
          ...body,
          lastEventAt: null,
          lastPullAt: null,
          lastPullError: null,
          createdAt: '2026-01-02T10:00:00.000Z',
        };
        connections = [created];
        return { status: 201, body: { ...created, secret: SECRET } };
      },
      'GET /api/marketplaces/44444444-4444-4444-8444-444444444444/status': () => ({
        status: 200,
        body: {
          codesReceived: 120,
          redeemed: 7,
          reports: { acked: 5, pending: 0, dead },
          refundsApplied: 1,
          lastEventAt: null,
          reportLagSeconds: 0,
        },
      }),
      'POST /api/marketplaces/44444444-4444-4444-8444-444444444444/retry-dead': () => {
        const requeued = dead;
        dead = 0;
        return { status: 200, body: { message: `${requeued} dead reports queued again.`, requeued } };
      },
    });
    const { user } = renderWithProviders(<MarketplacesCard />);
    const form = await screen.findByRole('form', { name: 'Connect marketplace' });
    await user.click(within(form).getByLabelText(/Name/));
    await user.paste('Groupon');
    await user.click(within(form).getByLabelText(/Base URL/));
    await user.paste('https://partner.example.com/licences');
    await user.click(within(form).getByLabelText('Product'));
    await user.click(await screen.findByRole('option', { name: PRODUCT.name }));
    await user.click(within(form).getByLabelText('Marketplace reference'));
    await user.paste('SKU-HB-MAC');
    await user.click(within(form).getByLabelText('Check each code with the marketplace at redeem'));
    await user.click(within(form).getByRole('button', { name: 'Connect marketplace' }));

    const shown = await screen.findByRole('dialog', { name: 'Marketplace signing secret' });
    expect(within(shown).getByTestId('marketplace-secret')).toHaveTextContent(SECRET);
    expect(server.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
      {
        name: 'Groupon',
        baseUrl: 'https://partner.example.com/licences',
        products: [{ productId: PRODUCT.id, externalRef: 'SKU-HB-MAC' }],
        checkAtRedeem: true,
        reportRedemptions: true,
        onUnreachable: 'accept',
        pullIntervalSeconds: 0,
      },
    ]);
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText(SECRET)).not.toBeInTheDocument());

    const connection = await screen.findByRole('article', { name: 'Marketplace Groupon' });
    expect(await within(connection).findByTestId('marketplace-status')).toHaveTextContent(
      'Codes received 120 · redeemed 7 · reports acked 5, pending 0, dead 2 · refunds applied 1',
    );
    await user.click(within(connection).getByRole('button', { name: 'Retry dead reports' }));
    await waitFor(() => expect(within(connection).getByTestId('marketplace-status')).toHaveTextContent('dead 0'));
    expect(server.requests.find((r) => r.path.endsWith('/retry-dead'))?.path).toBe(
      '/api/marketplaces/44444444-4444-4444-8444-444444444444/retry-dead',
    );
  });
});
