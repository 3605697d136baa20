import { act, screen, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { renderWithProviders } from '../../test/renderWithProviders';
import { signIn } from '../admin/adminTesting';
import { installAdminSession } from '../auth/session';
import { clearTokens } from '../auth/tokenStorage';
import { adminServer, meOf, type AdminHandler } from './adminTestServer';
import { RedemptionsTab } from './RedemptionsTab';

/** What the Redemptions tab's component tests share: the fake API of the last `open`, a signed-in session, the lookups. */
export let server: ReturnType<typeof adminServer>;

/** Registers the hooks of a Redemptions tab test file: a signed-in admin before each test, everything reset after. */
export function setUpRedemptionsTab(): void {
  beforeEach(() => {
    installAdminSession();
    signIn('test-token', 'refresh-1');
  });
  afterEach(() => {
    server?.restore();
    act(() => resetToasts());
    clearTokens();
    jest.useRealTimers();
  });
}

export function open(
  showExported: boolean,
  {
    role = 'admin' as 'admin' | 'operator',
    list,
    extra = {},
  }: { role?: 'admin' | 'operator'; list: AdminHandler; extra?: Record<string, AdminHandler> },
) {
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    'GET /api/redemptions': list,
    ...extra,
  });
  return renderWithProviders(
    <>
      <RedemptionsTab showExported={showExported} />
      <Toaster />
    </>,
  );
}

export const table = () => screen.getByRole('table');
/** The toast region (outside an open dialog, so looked up by its label rather than by role). */
export const toasts = () => document.querySelector('[aria-label="Notifications (F8)"]')!;
export const rowOf = (code: string) => within(table()).getByText(code).closest('tr')!;
