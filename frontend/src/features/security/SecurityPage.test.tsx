import { act, screen, waitFor, within } from '@testing-library/react';
import { resetToasts } from '../../components/toast/toastStore';
import { renderRoutes } from '../../test/renderWithProviders';
import { adminRoutes, adminServer, meOf, signIn, type AdminHandler } from '../admin/adminTesting';
import type { OwnSession } from './securityApi';

let server: ReturnType<typeof adminServer>;
const saved: Array<{ name: string; blob: Blob }> = [];
let click: jest.SpyInstance;

beforeEach(() => {
  saved.length = 0;
  let last: Blob | undefined;
  // jsdom has no blob URLs and no downloads: keep what would be saved, and under which name.
  Object.assign(URL, {
    createObjectURL: (blob: Blob) => {
      last = blob;
      return 'blob:test';
    },
    revokeObjectURL: () => undefined,
  });
  click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
    saved.push({ name: this.download, blob: last! });
  });
});
afterEach(() => {
  click.mockRestore();
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const toasts = () => document.querySelector('[aria-label="Notifications (F8)"]')!;
const CODES = Array.from({ length: 10 }, (_, i) => `AAAA-BBBB-CCCC-${String(i).padStart(4, '2')}`);
const SECRET = 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP';
const SESSIONS: OwnSession[] = [
  {
    id: '00000000-0000-4000-8000-00000000000a',
    current: true,
    createdAt: '2026-01-02T10:00:00.000Z',
    lastUsedAt: '2026-01-02T11:00:00.000Z',
    ip: '203.0.113.7',
    userAgent: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/140.0.0.0 Safari/537.36',
  },
  {
    id: '00000000-0000-4000-8000-00000000000b',
    current: false,
    createdAt: '2026-01-01T09:00:00.000Z',
    lastUsedAt: '2026-01-01T09:30:00.000Z',
    ip: '198.51.100.9',
    userAgent: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
  },
];

function openSecurity(extra: Record<string, AdminHandler> = {}, { twoFactorEnabled = false } = {}) {
  let enabled = twoFactorEnabled;
  let sessions = SESSIONS;
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: { ...meOf('admin'), twoFactorEnabled: enabled } }),
    'GET /api/admin/sessions': () => ({ status: 200, body: sessions }),
    'POST /api/admin/2fa/setup': () => ({
      status: 200,
      body: {
        secret: SECRET,
        otpauthUrl: `otpauth://totp/x?secret=${SECRET}`,
        qrCodeDataUrl: 'data:image/png;base64,AAAA',
      },
    }),
    'POST /api/admin/2fa/enable': () => {
      enabled = true;
      return { status: 200, body: { twoFactorEnabled: true, recoveryCodes: CODES } };
    },
    'POST /api/admin/2fa/disable': () => {
      enabled = false;
      return { status: 200, body: { twoFactorEnabled: false } };
    },
    'DELETE /api/admin/sessions/*': (req) => {
      sessions = sessions.filter((s) => !req.path.endsWith(s.id));
      return { status: 200, body: { success: true } };
    },
    'POST /api/admin/sessions/revoke-others': () => {
      const revoked = sessions.filter((s) => !s.current).length;
      sessions = sessions.filter((s) => s.current);
      return { status: 200, body: { revoked } };
    },
    ...extra,
  });
  signIn();
  return renderRoutes(adminRoutes(), '/admin/security');
}

function readText(blob: Blob): Promise<string> {
  return new Promise((resolve) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.readAsText(blob);
  });
}

describe('Security screen: two-factor authentication', () => {
  it('enrols with the keyboard: password, QR code and secret, 6-digit code, then the recovery codes once (copy, .txt)', async () => {
    const { user } = openSecurity();
    await user.click(await screen.findByRole('button', { name: 'Set Up Two-Factor Authentication' }));
    expect(screen.getByLabelText('Current Password', { selector: 'input' })).toHaveFocus();
    await user.keyboard('Str0ng!Passw0rd#1{Enter}');

    expect(await screen.findByRole('img', { name: 'QR code for your authenticator app' })).toHaveAttribute(
      'src',
      'data:image/png;base64,AAAA',
    );
    expect(screen.getByTestId('totp-secret')).toHaveTextContent(SECRET);
    expect(server.of('POST', '/api/admin/2fa/setup')[0].body).toEqual({ currentPassword: 'Str0ng!Passw0rd#1' });
    const code = screen.getByLabelText(/Authentication Code/);
    expect(code).toHaveFocus();
    await user.keyboard('12a345');
    expect(code).toHaveValue('12345');
    expect(screen.getByRole('button', { name: 'Enable Two-Factor Authentication' })).toBeDisabled();
    await user.keyboard('6{Enter}');

    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(CODES);
    expect(screen.getByRole('heading', { name: 'Your Recovery Codes' })).toHaveFocus();
    expect(server.of('POST', '/api/admin/2fa/enable')[0].body).toEqual({ code: '123456' });
    await waitFor(() => expect(toasts()).toHaveTextContent('Two-Factor Authentication Enabled'));

    await user.click(screen.getByRole('button', { name: 'Copy Codes' }));
    expect(await navigator.clipboard.readText()).toBe(CODES.join('\n'));
    await user.click(screen.getByRole('button', { name: 'Download .txt' }));
    expect(saved).toHaveLength(1);
    expect(saved[0].name).toMatch(/^recovery-codes-\d{4}-\d{2}-\d{2}\.txt$/);
    const text = await readText(saved[0].blob);
    for (const c of CODES) expect(text).toContain(c);

    await user.click(screen.getByRole('button', { name: 'I Have Saved My Codes' }));
    expect(screen.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
    expect(await screen.findByText('Two-factor authentication is on for your account.')).toBeInTheDocument();
  });

  it('reports failures as toasts: a wrong password, a wrong code', async () => {
    const { user } = openSecurity({
      'POST /api/admin/2fa/setup': (req) =>
        (req.body as { currentPassword: string }).currentPassword === 'right-one'
          ? {
              status: 200,
              body: { secret: SECRET, otpauthUrl: 'otpauth://totp/x', qrCodeDataUrl: 'data:image/png;base64,AAAA' },
            }
          : { status: 400, body: { statusCode: 400, message: 'Current password is incorrect', error: 'Bad Request' } },
      'POST /api/admin/2fa/enable': () => ({
        status: 400,
        body: { statusCode: 400, message: 'Invalid two-factor code', error: 'Bad Request' },
      }),
    });
    await user.click(await screen.findByRole('button', { name: 'Set Up Two-Factor Authentication' }));
    await user.keyboard('wrong-one{Enter}');
    await waitFor(() => expect(toasts()).toHaveTextContent('Two-Factor Setup Failed'));
    expect(toasts()).toHaveTextContent('Current password is incorrect');

    await user.clear(screen.getByLabelText('Current Password', { selector: 'input' }));
    await user.keyboard('right-one{Enter}');
    await screen.findByTestId('totp-secret');
    await user.keyboard('000000{Enter}');
    await waitFor(() => expect(toasts()).toHaveTextContent('Two-Factor Activation Failed'));
    expect(toasts()).toHaveTextContent('Invalid two-factor code');
    expect(screen.queryByRole('list', { name: 'Recovery codes' })).not.toBeInTheDocument();
  });

  it('with two-factor on: regenerates the recovery codes and disables, each with a current code', async () => {
    const fresh = CODES.map((c) => c.replace('AAAA', 'ZZZZ'));
    const { user } = openSecurity(
      {
        'POST /api/admin/2fa/recovery-codes': (req) =>
          (req.body as { code: string }).code === '111111'
            ? { status: 200, body: { recoveryCodes: fresh } }
            : {
                status: 429,
                body: {
                  statusCode: 429,
                  message: 'Too many failed attempts. Please wait 15 minutes and try again.',
                  error: 'Too Many Requests',
                },
              },
      },
      { twoFactorEnabled: true },
    );
    const regenerate = await screen.findByRole('form', { name: 'Regenerate Recovery Codes' });
    await user.type(within(regenerate).getByLabelText(/Current code/), '999999{Enter}');
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to regenerate recovery codes'));
    expect(toasts()).toHaveTextContent('Too many failed attempts. Please wait 15 minutes and try again.');
    await user.clear(within(regenerate).getByLabelText(/Current code/));
    await user.type(within(regenerate).getByLabelText(/Current code/), '111111{Enter}');
    const list = await screen.findByRole('list', { name: 'Recovery codes' });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(fresh);
    await user.click(screen.getByRole('button', { name: 'I Have Saved My Codes' }));

    const disable = screen.getByRole('form', { name: 'Disable Two-Factor Authentication' });
    await user.type(within(disable).getByLabelText(/Current code/), '222222');
    await user.click(within(disable).getByRole('button', { name: 'Disable Two-Factor Authentication' }));
    expect(await screen.findByRole('button', { name: 'Set Up Two-Factor Authentication' })).toBeInTheDocument();
    expect(server.of('POST', '/api/admin/2fa/disable')[0].body).toEqual({ code: '222222' });
  });
});

describe('Security screen: sessions', () => {
  it('lists the own sessions with browser, address and "This device"; signs one out, then everywhere else', async () => {
    const { user } = openSecurity({}, {});
    const table = await screen.findByRole('table', { name: 'Sessions' });
    const rows = await within(table).findAllByTestId('session-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveTextContent('Chrome 140 on Linux');
    expect(rows[0]).toHaveTextContent('This device');
    expect(rows[0]).toHaveTextContent('203.0.113.7');
    expect(within(rows[0]).queryByRole('button', { name: /Sign out/ })).not.toBeInTheDocument();
    expect(rows[1]).toHaveTextContent('Firefox 133 on Windows');
    expect(rows[1]).not.toHaveTextContent('This device');

    await user.click(within(rows[1]).getByRole('button', { name: 'Sign out Firefox 133 on Windows (198.51.100.9)' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Session signed out'));
    expect(server.of('DELETE', `/api/admin/sessions/${SESSIONS[1].id}`)).toHaveLength(1);
    await waitFor(() => expect(within(table).getAllByTestId('session-row')).toHaveLength(1));
    expect(screen.getByRole('button', { name: 'Sign out everywhere else' })).toBeDisabled();
  });

  it('"Sign out everywhere else" asks first; a failed sign-out says so with the server message', async () => {
    const { user } = openSecurity({
      'DELETE /api/admin/sessions/*': () => ({
        status: 404,
        body: { statusCode: 404, message: 'Session not found', error: 'Not Found' },
      }),
    });
    const table = await screen.findByRole('table', { name: 'Sessions' });
    const [, other] = await within(table).findAllByTestId('session-row');
    await user.click(within(other).getByRole('button', { name: /^Sign out/ }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to sign out session'));
    expect(toasts()).toHaveTextContent('Session not found');

    await user.click(screen.getByRole('button', { name: 'Sign out everywhere else' }));
    const dialog = screen.getByRole('dialog', { name: 'Sign out everywhere else' });
    expect(dialog).toHaveTextContent('Sign out all 1 other session(s)? This device stays signed in.');
    await user.click(within(dialog).getByRole('button', { name: 'Sign out' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Signed out everywhere else'));
    expect(server.of('POST', '/api/admin/sessions/revoke-others')).toHaveLength(1);
    await waitFor(() => expect(within(table).getAllByTestId('session-row')).toHaveLength(1));
  });

  it('a failed sessions load is a toast', async () => {
    openSecurity({
      'GET /api/admin/sessions': () => ({
        status: 500,
        body: { statusCode: 500, message: 'Internal server error', error: 'Internal Server Error' },
      }),
    });
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to load sessions'));
    expect(toasts()).toHaveTextContent('Internal server error');
  });
});
