import { act, fireEvent, screen } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { renderWithProviders } from '../../test/renderWithProviders';
import { adminServer, signIn } from '../admin/adminTesting';
import { installAdminSession } from '../auth/session';
import { ChangePasswordDialog } from './ChangePasswordDialog';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

function open(
  answer: { status: number; body?: unknown } = { status: 200, body: { message: 'Password changed successfully' } },
) {
  server = adminServer({ 'POST /api/admin/change-password': () => answer });
  signIn();
  installAdminSession();
  const onClose = jest.fn();
  const view = renderWithProviders(
    <>
      <ChangePasswordDialog open onClose={onClose} />
      <Toaster />
    </>,
  );
  return { ...view, onClose };
}

const set = (label: string, value: string) =>
  fireEvent.change(screen.getByLabelText(label, { selector: 'input' }), { target: { value } });

describe('Change Password modal', () => {
  it('toggles each field between hidden and shown', async () => {
    const { user } = open();
    const input = screen.getByLabelText('New Password', { selector: 'input' });
    expect(input).toHaveAttribute('type', 'password');
    await user.click(screen.getByRole('button', { name: 'Show new password' }));
    expect(input).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide new password' }));
    expect(input).toHaveAttribute('type', 'password');
    expect(screen.getByRole('button', { name: 'Show current password' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Show confirm new password' })).toBeInTheDocument();
  });

  it('rates the new password weak, medium or strong as it is typed', () => {
    open();
    const level = () => screen.getByTestId('password-strength').textContent;
    expect(level()).toBe('Weak');
    set('New Password', 'abcDEF1');
    expect(level()).toBe('Medium');
    expect(
      screen.getByRole('progressbar', { name: 'Password strength: Medium (3 of 5 criteria met)' }),
    ).toBeInTheDocument();
    set('New Password', 'abcDEF1!');
    expect(level()).toBe('Strong');
    expect(screen.getByText('At least 12 characters')).toHaveTextContent('(not met)');
    expect(screen.getByText('Special character')).toHaveTextContent('(met)');
  });

  it("shows the policy's messages on the fields and sends nothing while they fail", async () => {
    const { user } = open();
    set('New Password', 'short');
    set('Confirm New Password', 'other');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(screen.getByText('Current password is required')).toBeInTheDocument();
    expect(screen.getByText('Password must be at least 12 characters')).toBeInTheDocument();
    expect(screen.getByLabelText('Confirm New Password', { selector: 'input' })).toHaveAccessibleDescription(
      "Passwords don't match",
    );
    set('New Password', 'nouppercase1!x');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(
      screen.getByText('Password must contain uppercase, lowercase, number, and special character'),
    ).toBeInTheDocument();
    expect(server.requests).toHaveLength(0);
  });

  it('sends exactly {currentPassword, newPassword} (docs/product.md §8.3), then closes with a success toast', async () => {
    const { user, onClose } = open();
    set('Current Password', 'Old!Passw0rd#1');
    set('New Password', 'N3w!Passw0rd#2026');
    set('Confirm New Password', 'N3w!Passw0rd#2026');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password Changed')).toBeInTheDocument();
    expect(onClose).toHaveBeenCalled();
    expect(server.requests[0]).toMatchObject({ path: '/api/admin/change-password', auth: 'Bearer access-1' });
    expect(server.requests[0].body).toEqual({ currentPassword: 'Old!Passw0rd#1', newPassword: 'N3w!Passw0rd#2026' });
  });

  it('"Password Change Failed" with the server message', async () => {
    const { user, onClose } = open({
      status: 400,
      body: { statusCode: 400, message: 'Current password is incorrect', error: 'Bad Request' },
    });
    set('Current Password', 'Wrong!Passw0rd#1');
    set('New Password', 'N3w!Passw0rd#2026');
    set('Confirm New Password', 'N3w!Passw0rd#2026');
    await user.click(screen.getByRole('button', { name: 'Change Password' }));
    expect(await screen.findByText('Password Change Failed')).toBeInTheDocument();
    expect(screen.getByText('Current password is incorrect')).toBeInTheDocument();
    expect(onClose).not.toHaveBeenCalled();
  });
});
