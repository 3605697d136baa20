import { act, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { fakeServer } from '../../test/fakeServer';
import { renderWithProviders } from '../../test/renderWithProviders';
import { signIn } from '../admin/adminTesting';
import { installAdminSession } from '../auth/session';
import { ReviewTab } from './ReviewTab';

let server: ReturnType<typeof fakeServer>;
afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const CASE = (id: string, code: string) => ({
  redemptionId: id,
  voucherCode: code,
  productName: 'Office 2024 Professional Plus (Windows)',
  customerEmail: `${code.toLowerCase()}@mailinator.com`,
  heldAt: '2026-01-02T10:00:00.000Z',
  rules: [{ rule: 'emailPerDay', evidence: { redemptions24h: 4 } }],
});
const A = '11111111-1111-4111-8111-111111111111';
const B = '22222222-2222-4222-8222-222222222222';

/** docs/product.md §25.5: the Review tab's cases, a refusal with blocklist entries, a decision made first elsewhere. */
describe('the Review tab', () => {
  it('refuses with the chosen blocklist entries and shows a 409 from a colleague who decided first', async () => {
    let held = [CASE(A, 'HELD-A'), CASE(B, 'HELD-B')];
    server = fakeServer({
      'GET /api/reviews': () => ({ status: 200, body: { items: held, total: held.length } }),
      [`POST /api/reviews/${A}/refuse`]: () => {
        held = held.filter((c) => c.redemptionId !== A);
        return { status: 200, body: { success: true, message: 'Redemption refused.' } };
      },
      [`POST /api/reviews/${B}/approve`]: () => ({
        status: 409,
        body: { statusCode: 409, message: 'This redemption was already approved.', error: 'Conflict' },
      }),
    });
    signIn();
    installAdminSession();
    const { user } = renderWithProviders(
      <>
        <ReviewTab />
        <Toaster />
      </>,
    );
    const a = await screen.findByRole('article', { name: 'Held redemption HELD-A' });
    expect(within(a).getByText('redemptions24h: 4')).toBeInTheDocument();
    await user.click(within(a).getByRole('button', { name: 'Refuse' }));
    const dialog = await screen.findByRole('dialog');
    await user.click(within(dialog).getByLabelText("Add the customer's e-mail to the blocklist"));
    await user.click(within(dialog).getByRole('button', { name: 'Refuse' }));
    expect(await screen.findByText('Redemption refused')).toBeInTheDocument();
    expect(server.requests.filter((r) => r.method === 'POST').map((r) => [r.path, r.body])).toEqual([
      [`/api/reviews/${A}/refuse`, { blocklist: ['email'] }],
    ]);
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    await waitFor(() => expect(screen.queryByRole('article', { name: 'Held redemption HELD-A' })).toBeNull());

    const b = screen.getByRole('article', { name: 'Held redemption HELD-B' });
    await user.click(within(b).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('This redemption was already approved.')).toBeInTheDocument();
  });
});
