import { act, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer } from '../../test/fakeServer';
import { renderWithProviders } from '../../test/renderWithProviders';
import { signIn } from '../admin/adminTesting';
import { installAdminSession } from '../auth/session';
import { MarketplacesCard } from './MarketplacesCard';

let server: ReturnType<typeof fakeServer>;
afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const PRODUCT = {
  id: '33333333-3333-4333-8333-333333333333',
  name: 'Office 2024 Home & Business (Mac)',
  downloadLink: 'https://dl.example.com/mac',
  productKey: null,
  activationLink: null,
  removalToolLink: null,
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
          adapter: 'generic',
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

  it('connects AppSumo with its API key: no switches, no secret shown, the webhook URL to give AppSumo', async () => {
    let connections: Array<Record<string, unknown>> = [];
    const id = '66666666-6666-4666-8666-666666666666';
    server = fakeServer({
      'GET /api/products': () => ({ status: 200, body: [PRODUCT] }),
      'GET /api/marketplaces': () => ({ status: 200, body: connections }),
      'POST /api/marketplaces': (req) => {
        const body = req.body as Record<string, unknown>;
        const created = {
          id,
          adapter: 'appsumo',
          name: body.name,
          baseUrl: 'https://api.licensing.appsumo.com',
          products: body.products,
          checkAtRedeem: false,
          reportRedemptions: false,
          onUnreachable: 'accept',
          pullIntervalSeconds: 0,
          lastEventAt: null,
          lastPullAt: null,
          lastPullError: null,
          createdAt: '2026-01-02T10:00:00.000Z',
        };
        connections = [created];
        return { status: 201, body: { ...created, secret: body.apiKey } };
      },
      [`GET /api/marketplaces/${id}/status`]: () => ({
        status: 200,
        body: {
          codesReceived: 0,
          redeemed: 0,
          reports: { acked: 0, pending: 0, dead: 0 },
          refundsApplied: 0,
          lastEventAt: null,
          reportLagSeconds: 0,
        },
      }),
    });
    const { user } = renderWithProviders(<MarketplacesCard />);
    const form = await screen.findByRole('form', { name: 'Connect marketplace' });
    await user.click(within(form).getByLabelText('Protocol'));
    await user.click(await screen.findByRole('option', { name: 'AppSumo licensing webhooks' }));
    expect(within(form).queryByLabelText(/Base URL/)).not.toBeInTheDocument();
    expect(within(form).queryByLabelText('Check each code with the marketplace at redeem')).not.toBeInTheDocument();
    await user.click(within(form).getByLabelText(/Name/));
    await user.paste('AppSumo');
    await user.click(within(form).getByLabelText(/AppSumo API key/));
    await user.paste('c73455d8-0f64-4354-bd64-1f454a227104');
    await user.click(within(form).getByLabelText('Product'));
    await user.click(await screen.findByRole('option', { name: PRODUCT.name }));
    await user.click(within(form).getByLabelText('AppSumo plan_id'));
    await user.paste('1510ad397635386dd1ce401ddddde8886cbaa927efa0f3c66de680cfed5b7480');
    await user.click(within(form).getByRole('button', { name: 'Connect marketplace' }));

    const connection = await screen.findByRole('article', { name: 'Marketplace AppSumo' });
    expect(server.requests.filter((r) => r.method === 'POST').map((r) => r.body)).toEqual([
      {
        name: 'AppSumo',
        adapter: 'appsumo',
        apiKey: 'c73455d8-0f64-4354-bd64-1f454a227104',
        products: [
          { productId: PRODUCT.id, externalRef: '1510ad397635386dd1ce401ddddde8886cbaa927efa0f3c66de680cfed5b7480' },
        ],
      },
    ]);
    expect(
      within(connection).getByText(`AppSumo · webhook URL ${window.location.origin}/api/marketplaces/${id}/events`),
    ).toBeInTheDocument();
    expect(screen.queryByRole('dialog', { name: 'Marketplace signing secret' })).not.toBeInTheDocument();
  });

  it("downloads a connection's reconciliation: today's redemptions with their report status", async () => {
    const id = '55555555-5555-4555-8555-555555555555';
    server = fakeServer({
      'GET /api/products': () => ({ status: 200, body: [PRODUCT] }),
      'GET /api/marketplaces': () => ({
        status: 200,
        body: [
          {
            id,
            adapter: 'generic',
            name: 'Groupon',
            baseUrl: 'https://partner.example.com/licences',
            products: [{ productId: PRODUCT.id, externalRef: 'SKU-HB-MAC' }],
            checkAtRedeem: false,
            reportRedemptions: true,
            onUnreachable: 'accept',
            pullIntervalSeconds: 0,
            lastEventAt: null,
            lastPullAt: null,
            lastPullError: null,
            createdAt: '2026-01-02T10:00:00.000Z',
          },
        ],
      }),
      [`GET /api/marketplaces/${id}/status`]: () => ({
        status: 200,
        body: {
          codesReceived: 1,
          redeemed: 1,
          reports: { acked: 1, pending: 0, dead: 0 },
          refundsApplied: 0,
          lastEventAt: null,
          reportLagSeconds: 0,
        },
      }),
      [`GET /api/marketplaces/${id}/reconciliation`]: () => ({
        status: 200,
        body: 'Redemption ID,Voucher Code,External Ref,Redeemed At,Report Status\r\n',
        headers: {
          'Content-Type': 'text/csv',
          'Content-Disposition': 'attachment; filename="marketplace-Groupon-2026-01-02.csv"',
        },
      }),
    });
    Object.assign(URL, { createObjectURL: () => 'blob:test', revokeObjectURL: () => undefined });
    const saved: string[] = [];
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (
      this: HTMLAnchorElement,
    ) {
      saved.push(this.download);
    });
    try {
      signIn();
      installAdminSession();
      const { user } = renderWithProviders(
        <>
          <MarketplacesCard />
          <Toaster />
        </>,
      );
      const connection = await screen.findByRole('article', { name: 'Marketplace Groupon' });
      await user.click(within(connection).getByRole('button', { name: 'Reconciliation' }));
      expect(await screen.findByText('Export Successful')).toBeInTheDocument();
      expect(saved).toEqual(['marketplace-Groupon-2026-01-02.csv']);
      expect(server.requests.filter((r) => r.path.endsWith('/reconciliation')).map((r) => r.auth)).toEqual([
        'Bearer access-1',
      ]);
    } finally {
      click.mockRestore();
    }
  });
});
