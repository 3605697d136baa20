import { act, screen, waitFor } from '@testing-library/react';
import { resetToasts } from '../../components/toast/toastStore';
import { renderRoutes } from '../../test/renderWithProviders';
import { adminRoutes, adminServer, meOf, PRODUCT, signIn, STATS, type AdminHandler } from '../admin/adminTesting';
import { PUBLIC_CONFIG } from '../../test/fakeServer';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const dashboardCalls: Record<string, AdminHandler> = {
  'GET /api/public-config': () => ({ status: 200, body: PUBLIC_CONFIG }),
  'GET /api/admin/me': () => ({ status: 200, body: meOf('admin') }),
  'GET /api/products': () => ({ status: 200, body: [PRODUCT] }),
  'GET /api/stats/*': () => ({ status: 200, body: STATS }),
};

async function fillCredentials(user: ReturnType<typeof renderRoutes>['user'], password = 'Str0ng!Passw0rd#1') {
  await user.click(screen.getByLabelText(/Username/));
  await user.paste('alice');
  await user.click(screen.getByLabelText(/Password/));
  await user.paste(password);
}

describe('admin login with single sign-on', () => {
  it('offers "Sign in with <provider>" when the server has a provider configured', async () => {
    server = adminServer({
      ...dashboardCalls,
      'GET /api/public-config': () => ({ status: 200, body: { ...PUBLIC_CONFIG, ssoDisplayName: 'Contoso' } }),
    });
    renderRoutes(adminRoutes(), '/admin/login');
    const link = await screen.findByRole('link', { name: 'Sign in with Contoso' });
    expect(link).toHaveAttribute('href', '/api/admin/oidc/login');
    expect(screen.getByLabelText(/Username/)).toBeInTheDocument(); // the break-glass password form stays
  });

  const REFUSED = 'Invalid or expired single sign-on code. Please sign in again.';
  const exchanged = { accessToken: 'access-sso', refreshToken: 'refresh-sso', requiresTwoFactor: false };

  it('exchanges the code at once when no one is signed in, drops the fragment, opens the dashboard', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/oidc/exchange': () => ({ status: 200, body: exchanged }),
    });
    const { location } = renderRoutes(adminRoutes(), '/admin/login#sso-code=handed-over');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin');
    expect(location.current.hash).toBe('');
    // The code goes in the body; the hand-off cookie is the browser's (httpOnly, not the page's to send or read).
    expect(server.of('POST', '/api/admin/oidc/exchange').map((r) => [r.body, r.auth])).toEqual([
      [{ code: 'handed-over' }, null],
    ]);
    expect(server.requests.some((r) => r.path === '/api/admin/refresh')).toBe(false);
    expect([localStorage.getItem('adminToken'), localStorage.getItem('adminRefreshToken')]).toEqual([
      'access-sso',
      'refresh-sso',
    ]);
  });

  it('says why the exchange was refused (a code without its browser cookie, spent or expired)', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/oidc/exchange': () => ({
        status: 401,
        body: { statusCode: 401, message: REFUSED, error: 'Unauthorized' },
      }),
    });
    const { location } = renderRoutes(adminRoutes(), '/admin/login#sso-code=someone-elses');
    expect(await screen.findByText(REFUSED)).toBeInTheDocument();
    expect(screen.getByText('Login Failed')).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin/login');
    expect(location.current.hash).toBe('');
    expect(localStorage.getItem('adminToken')).toBeNull();
  });

  it('asks a signed-in admin before switching accounts; "Stay" keeps the session and exchanges nothing', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/oidc/exchange': () => ({ status: 200, body: exchanged }),
    });
    signIn('access-1', 'refresh-1');
    const { user, location } = renderRoutes(adminRoutes(), '/admin/login#sso-code=handed-over');
    const dialog = await screen.findByRole('dialog', { name: 'Switch account?' });
    expect(dialog).toHaveTextContent('You are signed in as admin. Switch to the account you just signed in with?');
    expect(location.current.hash).toBe('');
    await user.click(screen.getByRole('button', { name: 'Stay signed in as admin' }));
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(server.of('POST', '/api/admin/oidc/exchange')).toEqual([]);
    expect(localStorage.getItem('adminRefreshToken')).toBe('refresh-1');
  });

  it('"Switch account" exchanges the code and ends the session it leaves', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/oidc/exchange': () => ({ status: 200, body: exchanged }),
      'POST /api/admin/logout': () => ({ status: 200, body: { success: true } }),
    });
    signIn('access-1', 'refresh-1');
    const { user, location } = renderRoutes(adminRoutes(), '/admin/login#sso-code=handed-over');
    await screen.findByRole('dialog', { name: 'Switch account?' });
    expect(server.of('POST', '/api/admin/oidc/exchange')).toEqual([]);
    await user.click(screen.getByRole('button', { name: 'Switch account' }));
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin');
    expect(server.of('POST', '/api/admin/oidc/exchange').map((r) => r.body)).toEqual([{ code: 'handed-over' }]);
    await waitFor(() => expect(server.of('POST', '/api/admin/logout').map((r) => r.auth)).toEqual(['Bearer access-1']));
    expect(localStorage.getItem('adminRefreshToken')).toBe('refresh-sso');
  });

  it('says why the provider sign-in was refused', async () => {
    server = adminServer(dashboardCalls);
    const { location } = renderRoutes(adminRoutes(), '/admin/login#sso-error=no-role');
    expect(await screen.findByText(/Your account has no role in this service/)).toBeInTheDocument();
    expect(screen.queryByRole('link', { name: /Sign in with/ })).not.toBeInTheDocument(); // no provider configured
    expect(location.current.hash).toBe('');
    expect(location.current.pathname).toBe('/admin/login');
    expect(localStorage.getItem('adminToken')).toBeNull();
  });
});

describe('admin login', () => {
  it('switches to the 6-digit code step when two-factor is required, then signs in and opens the dashboard', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/login': (req) => {
        const body = req.body as { twoFactorCode?: string };
        if (!body.twoFactorCode) return { status: 200, body: { requiresTwoFactor: true } };
        return {
          status: 200,
          body: { accessToken: 'access-2fa', refreshToken: 'refresh-2fa', requiresTwoFactor: false },
        };
      },
    });
    const { user, location } = renderRoutes(adminRoutes(), '/admin/login');
    expect(screen.getByRole('button', { name: 'Sign In' })).toBeDisabled();
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));

    expect(await screen.findByText('Two-Factor Authentication Required')).toBeInTheDocument();
    expect(screen.getByText('Please enter your 6-digit authentication code.')).toBeInTheDocument();
    const code = screen.getByLabelText(/Authentication Code/);
    expect(code).toHaveAttribute('maxLength', '6');
    expect(screen.getByRole('button', { name: 'Back to Login' })).toBeInTheDocument();
    expect(screen.queryByLabelText(/Username/)).not.toBeInTheDocument();

    await user.click(code);
    await user.paste('12a34');
    expect(code).toHaveValue('1234');
    expect(screen.getByRole('button', { name: 'Verify Code' })).toBeDisabled();
    await user.paste('5678');
    expect(code).toHaveValue('123456');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));

    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin');
    const logins = server.requests.filter((r) => r.path === '/api/admin/login').map((r) => r.body);
    expect(logins).toEqual([
      { username: 'alice', password: 'Str0ng!Passw0rd#1' },
      { username: 'alice', password: 'Str0ng!Passw0rd#1', twoFactorCode: '123456' },
    ]);
    expect([
      localStorage.getItem('adminToken'),
      localStorage.getItem('authToken'),
      localStorage.getItem('adminRefreshToken'),
    ]).toEqual(['access-2fa', 'access-2fa', 'refresh-2fa']);
    expect(server.requests.find((r) => r.path === '/api/admin/me')?.auth).toBe('Bearer access-2fa');
  });

  it('in the code step, "Use a Recovery Code" sends a recovery code in place of the 6-digit code', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/login': (req) => {
        const body = req.body as { recoveryCode?: string };
        if (!body.recoveryCode) return { status: 200, body: { requiresTwoFactor: true } };
        return {
          status: 200,
          body: { accessToken: 'access-rc', refreshToken: 'refresh-rc', requiresTwoFactor: false },
        };
      },
    });
    const { user, location } = renderRoutes(adminRoutes(), '/admin/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await user.click(await screen.findByRole('button', { name: 'Use a Recovery Code' }));
    const field = screen.getByLabelText(/Recovery Code/);
    expect(field).toHaveFocus();
    expect(screen.getByRole('button', { name: 'Verify Code' })).toBeDisabled();
    await user.paste(' k7qm-2xwd-r9pa-ht4c ');
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin');
    expect(server.of('POST', '/api/admin/login').map((r) => r.body)).toEqual([
      { username: 'alice', password: 'Str0ng!Passw0rd#1' },
      { username: 'alice', password: 'Str0ng!Passw0rd#1', recoveryCode: 'k7qm-2xwd-r9pa-ht4c' },
    ]);
  });

  it('shows "Authenticating..." while the login runs', async () => {
    let answer!: (v: { status: number; body: unknown }) => void;
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/login': () => new Promise((resolve) => (answer = resolve)),
    });
    const { user } = renderRoutes(adminRoutes(), '/admin/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByRole('button', { name: 'Authenticating...' })).toBeDisabled();
    await act(async () =>
      answer({
        status: 401,
        body: { statusCode: 401, message: 'Invalid username or password', error: 'Unauthorized' },
      }),
    );
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
  });

  it('"Login Failed" with the server message; a wrong code resets the form and the two-factor step', async () => {
    server = adminServer({
      ...dashboardCalls,
      'POST /api/admin/login': (req) =>
        (req.body as { twoFactorCode?: string }).twoFactorCode
          ? { status: 401, body: { statusCode: 401, message: 'Invalid two-factor code', error: 'Unauthorized' } }
          : { status: 200, body: { requiresTwoFactor: true } },
    });
    const { user } = renderRoutes(adminRoutes(), '/admin/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    await user.click(await screen.findByLabelText(/Authentication Code/));
    await user.paste('000000');
    await user.click(screen.getByRole('button', { name: 'Verify Code' }));

    expect(await screen.findByText('Login Failed')).toBeInTheDocument();
    expect(screen.getByText('Invalid two-factor code')).toBeInTheDocument();
    expect(screen.getByLabelText(/Username/)).toHaveValue('alice');
    expect(screen.getByLabelText(/Password/)).toHaveValue('');
    expect(screen.queryByLabelText(/Authentication Code/)).not.toBeInTheDocument();
    expect(localStorage.getItem('adminToken')).toBeNull();
  });

  it("falls back to the catalogue's text when the server gives no message", async () => {
    server = adminServer({ ...dashboardCalls, 'POST /api/admin/login': () => ({ status: 500 }) });
    const { user } = renderRoutes(adminRoutes(), '/admin/login');
    await fillCredentials(user);
    await user.click(screen.getByRole('button', { name: 'Sign In' }));
    expect(await screen.findByText('Login failed. Please check your credentials.')).toBeInTheDocument();
  });
});

describe('admin login when already signed in', () => {
  it('goes straight to the dashboard', async () => {
    server = adminServer(dashboardCalls);
    signIn();
    const { location } = renderRoutes(adminRoutes(), '/admin/login');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin');
  });
});

describe('RequireAuth', () => {
  it('sends a visitor without a token to /admin/login without calling the server', async () => {
    server = adminServer(dashboardCalls);
    const { location } = renderRoutes(adminRoutes(), '/admin');
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    expect(location.current.pathname).toBe('/admin/login');
    expect(server.requests.some((r) => r.path === '/api/admin/me')).toBe(false);
  });

  it('shows the verifying-access screen while the me call runs', async () => {
    let answer!: (v: { status: number; body: unknown }) => void;
    server = adminServer({
      ...dashboardCalls,
      'GET /api/admin/me': () => new Promise((resolve) => (answer = resolve)),
    });
    signIn();
    renderRoutes(adminRoutes(), '/admin');
    expect(await screen.findByText('Verifying access...')).toBeInTheDocument();
    await act(async () => answer({ status: 200, body: meOf('admin') }));
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
  });

  it('renews an expired access token once through POST /api/admin/refresh and retries the call', async () => {
    server = adminServer({
      ...dashboardCalls,
      'GET /api/admin/me': (req) =>
        req.auth === 'Bearer access-2'
          ? { status: 200, body: meOf('admin') }
          : { status: 401, body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' } },
      'POST /api/admin/refresh': (req) =>
        (req.body as { refreshToken: string }).refreshToken === 'refresh-1'
          ? { status: 200, body: { accessToken: 'access-2', refreshToken: 'refresh-2', requiresTwoFactor: false } }
          : { status: 401, body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' } },
    });
    signIn('access-1', 'refresh-1');
    renderRoutes(adminRoutes(), '/admin');
    expect(await screen.findByRole('heading', { name: 'Admin Dashboard' })).toBeInTheDocument();
    expect(server.requests.filter((r) => r.path === '/api/admin/refresh')).toHaveLength(1);
    expect(server.requests.filter((r) => r.path === '/api/admin/me').map((r) => r.auth)).toEqual([
      'Bearer access-1',
      'Bearer access-2',
    ]);
    expect(localStorage.getItem('adminRefreshToken')).toBe('refresh-2');
  });

  it('goes to the login page and forgets the tokens when the session cannot be renewed', async () => {
    server = adminServer({
      ...dashboardCalls,
      'GET /api/admin/me': () => ({
        status: 401,
        body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' },
      }),
      'POST /api/admin/refresh': () => ({
        status: 401,
        body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' },
      }),
    });
    signIn('access-1', 'refresh-1');
    const { location } = renderRoutes(adminRoutes(), '/admin');
    expect(await screen.findByRole('button', { name: 'Sign In' })).toBeInTheDocument();
    await waitFor(() => expect(location.current.pathname).toBe('/admin/login'));
    expect(server.requests.filter((r) => r.path === '/api/admin/refresh')).toHaveLength(1);
    expect(localStorage.getItem('adminToken')).toBeNull();
    expect(localStorage.getItem('adminRefreshToken')).toBeNull();
  });
});
