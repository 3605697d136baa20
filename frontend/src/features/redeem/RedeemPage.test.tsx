import { act, screen, waitFor, within } from '@testing-library/react';
import { routes } from '../../app/router';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer, PUBLIC_CONFIG, type Handler } from '../../test/fakeServer';
import { loadPublicPages, renderRoutes } from '../../test/renderWithProviders';

const config: Handler = () => ({ status: 200, body: PUBLIC_CONFIG });
let server: ReturnType<typeof fakeServer>;

// The pages are loaded on demand: compiled once here, not within a test's wait (loadPublicPages).
beforeAll(loadPublicPages);

afterEach(() => {
  jest.restoreAllMocks();
  server?.restore();
  act(() => resetToasts());
});

async function openRedeemPage(
  redeem: Handler = () => ({
    status: 201,
    body: { success: true, productName: 'Office 2024 Professional Plus (Windows)', successToken: 'tok123' },
  }),
) {
  server = fakeServer({ 'GET /api/public-config': config, 'POST /api/redeem-voucher': redeem });
  const view = renderRoutes(routes, '/');
  await screen.findByRole('heading', { level: 1, name: /Redeem Your Office License/ });
  return view;
}

const field = (name: RegExp) => screen.getByRole('textbox', { name }) as HTMLInputElement;

async function fillValid(user: ReturnType<typeof renderRoutes>['user'], code = 'win-code-0001') {
  // Pasting is one change event per field; typing is covered by the live-validation tests.
  for (const [name, value] of [
    [/First Name/, 'Ann'],
    [/Last Name/, 'Lee'],
    [/Email Address/, 'Ann@Example.com'],
    [/Phone Number/, '+1 302 555 0100'],
    [/Voucher Code/, code.toLowerCase()],
  ] as const) {
    await user.click(field(name));
    await user.paste(value);
  }
  await user.click(screen.getByRole('checkbox', { name: /Privacy Policy/ }));
}

describe('redeem page', () => {
  it('shows the company name, support e-mail and address from /api/public-config', async () => {
    await openRedeemPage();
    expect(
      await screen.findByRole('heading', { level: 1, name: 'Redeem Your Office License | Licence Desk Ltd' }),
    ).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Contact Support' })).toHaveAttribute('href', 'mailto:help@licences.test');
    expect(screen.getByText('1 Main St, Dover, DE 19901, USA')).toBeInTheDocument();
    expect(document.title).toBe('Redeem Your Office License | Licence Desk Ltd');
    expect(document.head.querySelector('meta[name="description"]')).toHaveAttribute(
      'content',
      'Redeem your office-suite 2024 voucher code and receive your licence key and download link at once.',
    );
  });

  it('labels every input, marks phone as required with a country-code hint, and links the policies in new tabs', async () => {
    await openRedeemPage();
    const phone = field(/Phone Number/);
    expect(phone).toBeRequired();
    expect(phone).toHaveAccessibleDescription(/country code/);
    const consent = screen.getByRole('checkbox', { name: /Privacy Policy/ }).closest('label')!;
    expect(within(consent).getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('target', '_blank');
    expect(within(consent).getByRole('link', { name: 'Terms & Conditions' })).toHaveAttribute(
      'href',
      '/terms-conditions',
    );
    expect(screen.getAllByRole('listitem').length).toBeGreaterThanOrEqual(4);
    expect(screen.getByText('Reveal the voucher code')).toBeInTheDocument();
  });

  it('upper-cases the voucher code as typed and shows the success indicator from 8 characters', async () => {
    const { user } = await openRedeemPage();
    await user.type(field(/Voucher Code/), 'abcd-12');
    expect(field(/Voucher Code/)).toHaveValue('ABCD-12');
    expect(screen.queryByRole('img', { name: 'Voucher code looks complete' })).not.toBeInTheDocument();
    await user.type(field(/Voucher Code/), 'x');
    expect(screen.getByRole('img', { name: 'Voucher code looks complete' })).toBeInTheDocument();
  });

  it('shows the phone success indicator from 10 characters', async () => {
    const { user } = await openRedeemPage();
    await user.type(field(/Phone Number/), '302555010');
    expect(screen.queryByRole('img', { name: 'Phone number looks complete' })).not.toBeInTheDocument();
    await user.type(field(/Phone Number/), '0');
    expect(screen.getByRole('img', { name: 'Phone number looks complete' })).toBeInTheDocument();
  });

  it("validates as the user types with the server's messages", async () => {
    const { user } = await openRedeemPage();
    await user.type(field(/Voucher Code/), 'AB CD');
    expect(field(/Voucher Code/)).toHaveAccessibleDescription('Invalid voucher code format');
    expect(field(/Voucher Code/)).toHaveAttribute('aria-invalid', 'true');
    await user.type(field(/First Name/), 'Ann3');
    expect(field(/First Name/)).toHaveAccessibleDescription('First name contains invalid characters');
    await user.type(field(/Email Address/), 'ann@');
    expect(field(/Email Address/)).toHaveAccessibleDescription('Invalid email address');
    await user.type(field(/Phone Number/), '0123456789');
    expect(field(/Phone Number/)).toHaveAccessibleDescription('Invalid phone number format');
    await user.clear(field(/First Name/));
    expect(field(/First Name/)).toHaveAccessibleDescription('First name is required');
  });

  it('keeps the submit button disabled until the checkbox is ticked', async () => {
    const { user } = await openRedeemPage();
    const submit = screen.getByRole('button', { name: 'Redeem Voucher' });
    expect(submit).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: /Privacy Policy/ }));
    expect(submit).toBeEnabled();
  });

  it('on submit with errors it sends nothing, shows every message and focuses the first invalid field', async () => {
    const { user } = await openRedeemPage();
    await user.click(screen.getByRole('checkbox', { name: /Privacy Policy/ }));
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    expect(field(/Voucher Code/)).toHaveFocus();
    expect(field(/Voucher Code/)).toHaveAccessibleDescription('Voucher code is required');
    expect(field(/Last Name/)).toHaveAccessibleDescription('Last name is required');
    expect(server.requests.filter((r) => r.path === '/api/redeem-voucher')).toHaveLength(0);
  });

  it('sends the normalised body with honeypots and the page-load submissionTime, shows "Processing Redemption..." and goes to the Windows page', async () => {
    let answer!: (value: { status: number; body: unknown }) => void;
    // The page's clock: the page opens at `opened`; the form is submitted 95 s later.
    const opened = 1_767_000_000_000;
    let now = opened;
    jest.spyOn(Date, 'now').mockImplementation(() => now);
    const { user, location } = await openRedeemPage(() => new Promise((resolve) => (answer = resolve)));
    now = opened + 95_000;
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    const busy = await screen.findByRole('button', { name: 'Processing Redemption...' });
    expect(busy).toBeDisabled();

    const sent = server.requests.find((r) => r.path === '/api/redeem-voucher')!.body as Record<string, unknown>;
    expect(sent).toMatchObject({
      voucherCode: 'WIN-CODE-0001',
      firstName: 'Ann',
      lastName: 'Lee',
      email: 'ann@example.com',
      phone: '+1 302 555 0100',
      acceptPrivacyPolicy: true,
      website: '',
      company_website: '',
    });
    expect(typeof sent.submissionTime).toBe('string');
    // The time the page was loaded, not the time of the submission.
    expect(sent.submissionTime).toBe(String(opened));
    expect(document.querySelector('input[name="website"]')).toHaveAttribute('tabindex', '-1');
    expect(document.querySelector('input[name="company_website"]')).toBeInTheDocument();

    act(() =>
      answer({
        status: 201,
        body: { success: true, productName: 'Office 2024 Home & Business (Windows)', successToken: 'tok-win' },
      }),
    );
    await waitFor(() => expect(location.current.pathname).toBe('/success/windows'));
    expect(location.current.search).toBe('?token=tok-win');
    expect(
      screen.getByText('Voucher successfully redeemed! Check your email for the download link and product license.'),
    ).toBeInTheDocument();
  });

  it('goes to the Mac page when the product name contains "mac" in any case', async () => {
    const { user, location } = await openRedeemPage(() => ({
      status: 201,
      body: { success: true, productName: 'Office 2024 Home & Business (MAC)', successToken: 'tok-mac' },
    }));
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    await waitFor(() => expect(location.current.pathname).toBe('/success/mac'));
    expect(location.current.search).toBe('?token=tok-mac');
  });

  it('shows "Redemption Failed" with the server message; Try Again clears and focuses the voucher field', async () => {
    const { user } = await openRedeemPage(() => ({
      status: 409,
      body: { statusCode: 409, message: 'This voucher code has already been redeemed.', error: 'Conflict' },
    }));
    await fillValid(user, 'USED-CODE-1');
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    const dialog = await screen.findByRole('dialog', { name: 'Redemption Failed' });
    expect(dialog).toHaveAccessibleDescription('This voucher code has already been redeemed.');
    await user.click(within(dialog).getByRole('button', { name: 'Try Again' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(field(/Voucher Code/)).toHaveValue('');
    await waitFor(() => expect(field(/Voucher Code/)).toHaveFocus());
    expect(field(/First Name/)).toHaveValue('Ann');
  });

  it('Close keeps the form as it was', async () => {
    const { user } = await openRedeemPage(() => ({
      status: 500,
      body: {
        statusCode: 500,
        message: 'Something went wrong on our side. Please try again later.',
        error: 'Internal Server Error',
      },
    }));
    await fillValid(user, 'KEEP-ME-123');
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    const dialog = await screen.findByRole('dialog', { name: 'Redemption Failed' });
    expect(dialog).toHaveTextContent('Something went wrong on our side. Please try again later.');
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(field(/Voucher Code/)).toHaveValue('KEEP-ME-123');
  });

  it('sends one Idempotency-Key per form: the same on a retry (kept in sessionStorage), forgotten when the success page opens', async () => {
    sessionStorage.clear();
    let calls = 0;
    const { user, location } = await openRedeemPage(() =>
      ++calls === 1
        ? {
            status: 500,
            body: {
              statusCode: 500,
              message: 'Something went wrong on our side. Please try again later.',
              error: 'Internal Server Error',
            },
          }
        : {
            status: 200,
            body: { success: true, productName: 'Office 2024 Professional Plus (Windows)', successToken: 'tok-again' },
          },
    );
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    const dialog = await screen.findByRole('dialog', { name: 'Redemption Failed' });
    const [first] = server.of('POST', '/api/redeem-voucher');
    const key = first.headers.get('Idempotency-Key');
    // 128 random bits, hex; kept in this tab until the success page opens.
    expect(key).toMatch(/^[0-9a-f]{32}$/);
    expect(sessionStorage.getItem('redeem-idempotency-key')).toBe(key);

    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    await waitFor(() => expect(location.current.pathname).toBe('/success/windows'));
    const [, again] = server.of('POST', '/api/redeem-voucher');
    expect(again.headers.get('Idempotency-Key')).toBe(key);
    expect(sessionStorage.getItem('redeem-idempotency-key')).toBeNull();
  });

  it('after a reload the key this tab kept is sent again, and forgotten on success', async () => {
    sessionStorage.setItem('redeem-idempotency-key', 'an-earlier-forms-key-0001');
    const { user } = await openRedeemPage();
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    await waitFor(() => expect(server.of('POST', '/api/redeem-voucher')).toHaveLength(1));
    // A key left by this tab's unfinished form (the page was reloaded) is that form's: sent again.
    expect(server.of('POST', '/api/redeem-voucher')[0].headers.get('Idempotency-Key')).toBe(
      'an-earlier-forms-key-0001',
    );
    await waitFor(() => expect(sessionStorage.getItem('redeem-idempotency-key')).toBeNull());
  });

  it('a success answer with an empty token fails with "Authentication token missing. Please try again."', async () => {
    const { user, location } = await openRedeemPage(() => ({
      status: 201,
      body: { success: true, productName: 'Office 2024 Professional Plus (Windows)', successToken: '' },
    }));
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    expect(await screen.findByRole('dialog', { name: 'Redemption Failed' })).toHaveTextContent(
      'Authentication token missing. Please try again.',
    );
    expect(location.current.pathname).toBe('/');
  });

  it('451 GEO_BLOCKED goes to /geo-blocked without a modal', async () => {
    const { user, location } = await openRedeemPage(() => ({
      status: 451,
      body: { statusCode: 451, code: 'GEO_BLOCKED', error: 'Access Restricted', message: 'not available' },
    }));
    await fillValid(user);
    await user.click(screen.getByRole('button', { name: 'Redeem Voucher' }));
    expect(await screen.findByRole('heading', { name: 'Access Restricted' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/geo-blocked');
    expect(screen.getByText('Region: Germany')).toBeInTheDocument();
    expect(screen.getByText('Error Code: GEO_BLOCKED')).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });
});
