import { act, screen, waitFor, within } from '@testing-library/react';
import { routes } from '../../app/router';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer, PUBLIC_CONFIG, type Handler } from '../../test/fakeServer';
import { loadPublicPages, renderRoutes } from '../../test/renderWithProviders';

let server: ReturnType<typeof fakeServer>;

// The pages are loaded on demand: compiled once here, not within a test's wait (loadPublicPages).
beforeAll(loadPublicPages);

afterEach(() => {
  server?.restore();
  act(() => resetToasts());
  jest.useRealTimers();
});

/** The "Access Denied" panel (an alert). */
async function deniedPanel(): Promise<HTMLElement> {
  return (await screen.findByRole('heading', { name: 'Access Denied' })).closest<HTMLElement>('[role="alert"]')!;
}

function serve(token: Handler) {
  server = fakeServer({
    'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }),
    'GET /api/success-token/*': token,
  });
}

const windowsResult = {
  isManualProcessing: false,
  customerEmail: 'ann@example.com',
  voucherCode: 'ABCD-1234',
  productName: 'Office 2024 Professional Plus (Windows)',
  licenseKey: 'ABCDE-FGHIJ-KLMNO-PQRST-UVWXY',
  downloadLink: 'https://downloads.example.com/office2024.exe',
};

describe('success pages', () => {
  it('without a token they go home at once', async () => {
    serve(() => ({ status: 200, body: windowsResult }));
    const { location } = renderRoutes(routes, '/success/windows');
    await waitFor(() => expect(location.current.pathname).toBe('/'));
    // The redeem page is what the customer lands on (its code, loaded on demand, in place before the test ends).
    await screen.findByRole('heading', { level: 1, name: /Redeem Your Office License/ });
    expect(server.requests.some((r) => r.path.startsWith('/api/success-token'))).toBe(false);
  });

  /**
   * While the token is checked the page says "Verifying access..." and nothing else of its own: no success
   * heading, key, download link or package (docs/product.md §2.3).
   */
  function expectOnlyVerifying() {
    const main = screen.getByRole('main');
    expect(within(main).getByRole('status')).toHaveTextContent('Verifying access...');
    expect(main).toHaveTextContent(/^Verifying access\.\.\.$/);
    expect(within(main).queryAllByRole('link')).toEqual([]);
    expect(within(main).queryAllByRole('button')).toEqual([]);
    expect(within(main).queryAllByRole('heading')).toEqual([]);
    // The site's header and footer stay.
    expect(screen.getByRole('banner')).toHaveTextContent('Licence Desk Ltd');
    expect(screen.getByRole('contentinfo')).toBeInTheDocument();
  }

  it.each([
    ['windows', windowsResult, 'Download Ready'],
    [
      'mac',
      {
        isManualProcessing: false,
        customerEmail: 'mac.user@example.com',
        voucherCode: 'ABCD-1234',
        productName: 'Office 2024 Home & Business (Mac)',
        licenseKey: null,
        downloadLink: '',
      },
      'Redemption Successful!',
    ],
  ])(
    '/success/%s shows only "Verifying access..." until the token is answered, then the result',
    async (page, body, heading) => {
      let answer!: (v: { status: number; body: unknown }) => void;
      serve(() => new Promise((resolve) => (answer = resolve)));
      renderRoutes(routes, `/success/${page}?token=abc`);
      await screen.findByText('Verifying access...');
      await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Licence Desk Ltd'));
      expectOnlyVerifying();
      act(() => answer({ status: 200, body }));
      expect(await screen.findByRole('heading', { name: heading })).toBeInTheDocument();
      expect(screen.getByText(body.customerEmail)).toBeInTheDocument();
      expect(screen.queryByText('Verifying access...')).not.toBeInTheDocument();
    },
  );

  it.each(['windows', 'mac'])(
    '/success/%s with a rejected token goes from "Verifying access..." straight to "Access Denied"',
    async (page) => {
      let answer!: (v: { status: number; body: unknown }) => void;
      serve(() => new Promise((resolve) => (answer = resolve)));
      renderRoutes(routes, `/success/${page}?token=forged`);
      await screen.findByText('Verifying access...');
      await waitFor(() => expect(screen.getByRole('banner')).toHaveTextContent('Licence Desk Ltd'));
      expectOnlyVerifying();
      act(() =>
        answer({
          status: 404,
          body: { statusCode: 404, message: 'Invalid or expired access token', error: 'Not Found' },
        }),
      );
      expect(await deniedPanel()).toHaveTextContent('Invalid or expired access token');
      expect(screen.queryByText('Verifying access...')).not.toBeInTheDocument();
      expect(
        screen.queryByRole('heading', { name: /Redemption Successful!|Download Ready|Your Product Key|Installation/ }),
      ).not.toBeInTheDocument();
    },
  );

  it('a rejected token shows "Access Denied" and nothing of the result', async () => {
    serve(() => ({
      status: 404,
      body: { statusCode: 404, message: 'Invalid or expired access token', error: 'Not Found' },
    }));
    renderRoutes(routes, '/success/mac?token=nope');
    expect(await screen.findByRole('heading', { name: 'Access Denied' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Redemption Successful!' })).not.toBeInTheDocument();
    expect(screen.queryByRole('region', { name: 'Installation packages' })).not.toBeInTheDocument();
  });

  it('a rejected token shows "Access Denied" with the server message, then goes home after 3000 ms', async () => {
    jest.useFakeTimers();
    serve(() => ({
      status: 404,
      body: { statusCode: 404, message: 'Invalid or expired access token', error: 'Not Found' },
    }));
    const { location } = renderRoutes(routes, '/success/windows?token=nope');
    const alert = await deniedPanel();
    expect(alert).toHaveTextContent('Invalid or expired access token');
    expect(alert).toHaveTextContent('Redirecting to home page...');
    act(() => jest.advanceTimersByTime(2000));
    expect(location.current.pathname).toBe('/success/windows');
    act(() => jest.advanceTimersByTime(1000));
    expect(location.current.pathname).toBe('/');
    await screen.findByRole('heading', { level: 1, name: /Redeem Your Office License/ });
  });

  it('a failed check without a message says "Failed to verify token"; no answer at all says "Access denied"', async () => {
    serve(() => ({ status: 500 }));
    const first = renderRoutes(routes, '/success/mac?token=t1');
    expect(await deniedPanel()).toHaveTextContent('Failed to verify token');
    first.unmount();
    server.restore();
    server = fakeServer({ 'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }) });
    globalThis.fetch = () => Promise.reject(new TypeError('Failed to fetch'));
    renderRoutes(routes, '/success/mac?token=t2');
    expect(await deniedPanel()).toHaveTextContent('Access denied');
  });

  it('manual processing: "Processing Your License", three steps and "What\'s Next?"', async () => {
    serve(() => ({
      status: 200,
      body: {
        isManualProcessing: true,
        customerEmail: 'ann@example.com',
        voucherCode: 'ABCD-1234',
        productName: 'Office 2024 Professional Plus (Windows)',
        licenseKey: null,
        downloadLink: '',
      },
    }));
    renderRoutes(routes, '/success/windows?token=manual');
    expect(await screen.findByRole('heading', { name: 'Processing Your License' })).toBeInTheDocument();
    expect(
      screen.getByText('We are preparing your license key & download link. You will get it shortly within 2-3 hours.'),
    ).toBeInTheDocument();
    for (const step of [
      'Voucher Successfully Redeemed',
      'License Assignment in Progress',
      'Email Delivery (2-3 hours)',
    ]) {
      expect(screen.getByText(step)).toBeInTheDocument();
    }
    expect(screen.getByText("What's Next?")).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Copy Product Key' })).not.toBeInTheDocument();
  });

  it('manual processing checks the token again every 30 s and turns into the key view once a key came', async () => {
    jest.useFakeTimers();
    let assigned = false;
    const waiting = { ...windowsResult, isManualProcessing: true, licenseKey: null, downloadLink: '' };
    serve(() => ({ status: 200, body: assigned ? windowsResult : waiting }));
    renderRoutes(routes, '/success/windows?token=backorder');
    expect(await screen.findByRole('heading', { name: 'Processing Your License' })).toBeInTheDocument();
    const checks = () => server.requests.filter((r) => r.path.startsWith('/api/success-token')).length;
    const before = checks();
    await act(async () => jest.advanceTimersByTime(29_000));
    expect(checks()).toBe(before);
    assigned = true;
    await act(async () => jest.advanceTimersByTime(1_000));
    expect(checks()).toBe(before + 1);
    expect(await screen.findByRole('button', { name: 'Copy Product Key' })).toBeInTheDocument();
    expect(screen.queryByRole('heading', { name: 'Processing Your License' })).not.toBeInTheDocument();
    // A key view is final: no more checks.
    await act(async () => jest.advanceTimersByTime(60_000));
    expect(checks()).toBe(before + 1);
  });

  it('normal case: download button in a new tab, masked key, fixed download information, steps and help', async () => {
    serve(() => ({ status: 200, body: windowsResult }));
    const { user } = renderRoutes(routes, '/success/windows?token=ok');
    expect(await screen.findByRole('heading', { name: 'Download Ready' })).toBeInTheDocument();
    expect(screen.getByText('ann@example.com')).toBeInTheDocument();
    const download = screen.getByRole('link', { name: 'Download Now' });
    expect(download).toHaveAttribute('href', windowsResult.downloadLink);
    expect(download).toHaveAttribute('target', '_blank');
    expect(screen.getByTestId('product-key')).toHaveTextContent('ABCDE-•••••-•••••-•••••-UVWXY');
    await user.click(screen.getByRole('button', { name: 'Show product key' }));
    expect(screen.getByTestId('product-key')).toHaveTextContent('ABCDE-FGHIJ-KLMNO-PQRST-UVWXY');
    for (const text of [
      'Verified & Authenticated',
      'Genuine',
      'Perpetual License',
      '3.4 MB',
      '16.0.17830.20138',
      'October 2024',
      'English (US)',
      '64-bit',
      'Perpetual',
    ]) {
      expect(screen.getByText(text)).toBeInTheDocument();
    }
    const steps = within(screen.getByRole('region', { name: 'Installation Steps' })).getAllByRole('listitem');
    expect(steps.map((s) => s.textContent)).toEqual([
      expect.stringMatching(/^Download and install/),
      expect.stringMatching(/Word, Excel or PowerPoint/),
      expect.stringMatching(/^Enter the product key/),
      expect.stringMatching(/^Activate/),
    ]);
    const help = screen.getByRole('region', { name: 'Need Help?' });
    expect(within(help).getByRole('link', { name: 'help@licences.test' })).toHaveAttribute(
      'href',
      'mailto:help@licences.test',
    );
    expect(within(help).getByText('Activation issues')).toBeInTheDocument();
    await user.click(download);
    expect(screen.getByText('Initializing download...')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Return to Home' })).toHaveAttribute('href', '/');
  });

  it('"Copy Product Key" copies the full key and says so; a refused copy says "Copy failed"', async () => {
    serve(() => ({ status: 200, body: windowsResult }));
    const { user } = renderRoutes(routes, '/success/windows?token=ok');
    await screen.findByRole('heading', { name: 'Download Ready' });
    await user.click(screen.getByRole('button', { name: 'Copy Product Key' }));
    expect(await navigator.clipboard.readText()).toBe('ABCDE-FGHIJ-KLMNO-PQRST-UVWXY');
    const notifications = screen.getByRole('region', { name: 'Notifications (F8)' });
    await waitFor(() =>
      expect(notifications).toHaveTextContent('Copied!Product Key has been copied to your clipboard'),
    );

    jest.spyOn(navigator.clipboard, 'writeText').mockRejectedValueOnce(new Error('denied'));
    await user.click(screen.getByRole('button', { name: 'Copy Product Key' }));
    expect(await within(notifications).findByRole('alert')).toHaveTextContent(
      'Copy failedPlease manually select and copy the text',
    );
  });

  it('Mac: "Redemption Successful!" with the e-mail, three packages in order, requirements', async () => {
    serve(() => ({
      status: 200,
      body: {
        isManualProcessing: false,
        customerEmail: 'mac.user@example.com',
        voucherCode: 'ABCD-1234',
        productName: 'Office 2024 Home & Business (Mac)',
        licenseKey: null,
        downloadLink: 'https://x.test/mac.pkg',
      },
    }));
    renderRoutes(routes, '/success/mac?token=mac');
    expect(await screen.findByText('mac.user@example.com')).toBeInTheDocument();
    expect(screen.getByRole('heading', { name: 'Redemption Successful!' })).toBeInTheDocument();
    const packages = within(screen.getByRole('region', { name: 'Installation packages' })).getAllByRole('listitem');
    expect(packages.map((p) => within(p).getByRole('heading').textContent)).toEqual([
      'Office Removal Tool',
      'Office 2024 Installer',
      'License Activation',
    ]);
    expect(packages[0]).toHaveTextContent('5.2 MB');
    expect(packages[0]).toHaveTextContent('Version 2.0');
    expect(within(packages[0]).getByRole('link', { name: 'Download Office Removal Tool' })).toHaveAttribute(
      'target',
      '_blank',
    );
    expect(packages[1]).toHaveTextContent('2.1 GB');
    expect(packages[1]).toHaveTextContent('Version 16.89.1');
    expect(packages[2]).toHaveTextContent('12.4 MB');
    expect(packages[2]).toHaveTextContent('no manual key entry');
    for (const req of [
      'macOS 13.0 or later',
      'Intel or Apple Silicon processor',
      '4 GB RAM (8 GB recommended)',
      '10 GB of free disk space',
    ]) {
      expect(screen.getByText(req)).toBeInTheDocument();
    }
    expect(screen.getByText('The installation may take 10-15 minutes.')).toBeInTheDocument();
    expect(screen.queryByText('https://x.test/mac.pkg')).not.toBeInTheDocument();
  });
});
