import { act, screen, within } from '@testing-library/react';
import { routes } from '../../app/router';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer, PUBLIC_CONFIG, type Handler } from '../../test/fakeServer';
import { loadPublicPages, renderRoutes } from '../../test/renderWithProviders';

const ANSWER = 'If this voucher was redeemed with this e-mail address, the order e-mail is on its way again.';
let server: ReturnType<typeof fakeServer>;

// The pages are loaded on demand: compiled once here, not within a test's wait (loadPublicPages).
beforeAll(loadPublicPages);

afterEach(() => {
  server?.restore();
  act(() => resetToasts());
});

function serve(resend: Handler = () => ({ status: 202, body: { message: ANSWER } })) {
  server = fakeServer({
    'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }),
    'GET /api/success-token/*': () => ({
      status: 200,
      body: {
        isManualProcessing: false,
        customerEmail: 'mia@example.com',
        voucherCode: 'MIA-2024-CODE',
        productName: 'Office 2024 Home & Business (Mac)',
        licenseKey: null,
        downloadLink: 'https://x.test/mac.pkg',
      },
    }),
    'POST /api/resend-order-email': resend,
  });
}

const resendCalls = () => server.requests.filter((r) => r.path === '/api/resend-order-email');

describe('"Didn\'t get the e-mail?"', () => {
  it('on the redeem page: checks both fields with the redeem rules, sends them normalised and shows the answer', async () => {
    serve();
    const { user } = renderRoutes(routes, '/');
    await user.click(await screen.findByRole('button', { name: "Didn't get the e-mail?" }));
    const dialog = await screen.findByRole('dialog', { name: "Didn't get the e-mail?" });

    await user.click(within(dialog).getByRole('button', { name: 'Send Again' }));
    expect(within(dialog).getByText('Voucher code is required')).toBeInTheDocument();
    expect(within(dialog).getByText('Invalid email address')).toBeInTheDocument();
    expect(resendCalls()).toHaveLength(0);

    await user.type(within(dialog).getByRole('textbox', { name: 'Voucher Code' }), 'bad code');
    await user.tab();
    expect(within(dialog).getByText('Invalid voucher code format')).toBeInTheDocument();
    await user.clear(within(dialog).getByRole('textbox', { name: 'Voucher Code' }));
    await user.type(within(dialog).getByRole('textbox', { name: 'Voucher Code' }), ' abcd-1234 ');
    expect(within(dialog).getByRole('textbox', { name: 'Voucher Code' })).toHaveValue(' ABCD-1234 ');
    await user.type(within(dialog).getByRole('textbox', { name: 'Email Address' }), ' Ann@Example.COM');
    await user.click(within(dialog).getByRole('button', { name: 'Send Again' }));

    expect(await within(dialog).findByText(ANSWER)).toBeInTheDocument();
    expect(resendCalls().map((r) => r.body)).toEqual([{ voucherCode: 'ABCD-1234', email: 'ann@example.com' }]);
  });

  it('on a success page the customer e-mail and voucher code of the token are filled in (docs/product.md §19.4)', async () => {
    serve();
    const { user } = renderRoutes(routes, '/success/mac?token=abc');
    // The page is drawn while the token is checked; the address is known once the answer is on screen.
    await screen.findByText('mia@example.com');
    await user.click(screen.getByRole('button', { name: "Didn't get the e-mail?" }));
    const dialog = await screen.findByRole('dialog', { name: "Didn't get the e-mail?" });
    expect(within(dialog).getByRole('textbox', { name: 'Email Address' })).toHaveValue('mia@example.com');
    expect(within(dialog).getByRole('textbox', { name: 'Voucher Code' })).toHaveValue('MIA-2024-CODE');
  });

  it("shows the server's message when it refuses (a blocked address)", async () => {
    serve(() => ({
      status: 429,
      body: {
        statusCode: 429,
        message: 'Too many invalid voucher codes. Please contact support.',
        error: 'Too Many Requests',
      },
    }));
    const { user } = renderRoutes(routes, '/');
    await user.click(await screen.findByRole('button', { name: "Didn't get the e-mail?" }));
    const dialog = await screen.findByRole('dialog', { name: "Didn't get the e-mail?" });
    await user.type(within(dialog).getByRole('textbox', { name: 'Voucher Code' }), 'ABCD-1234');
    await user.type(within(dialog).getByRole('textbox', { name: 'Email Address' }), 'ann@example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Send Again' }));
    expect(
      await within(dialog).findByText('Too many invalid voucher codes. Please contact support.'),
    ).toBeInTheDocument();
  });
});
