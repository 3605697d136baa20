import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { PermissionsProbe, permissionsApplied } from '../../test/PermissionsProbe';
import { renderWithProviders } from '../../test/renderWithProviders';
import { adminServer, aRedemption, meOf, type AdminHandler } from './adminTestServer';
import { RedemptionDetailsDialog } from './RedemptionDetailsDialog';
import type { AdminRedemption } from './redemptionsApi';

let server: ReturnType<typeof adminServer>;

beforeEach(() => localStorage.setItem('adminToken', 'test-token'));
afterEach(() => {
  server?.restore();
  act(() => resetToasts());
  localStorage.clear();
});

const toasts = () => document.querySelector('[aria-label="Notifications (F8)"]')!;

function open(
  redemption: AdminRedemption,
  extra: Record<string, AdminHandler> = {},
  role: 'admin' | 'operator' | 'shop-manager' = 'admin',
) {
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    [`GET /api/redemptions/${redemption.id}`]: () => ({ status: 200, body: redemption }),
    ...extra,
  });
  const onClose = jest.fn();
  const view = renderWithProviders(
    <>
      <RedemptionDetailsDialog redemption={redemption} onClose={onClose} />
      <Toaster />
      <PermissionsProbe />
    </>,
  );
  return { ...view, onClose };
}

const section = (name: string) => screen.getByRole('region', { name });

describe('redemption details modal', () => {
  it('shows the History newest first, with what happened, who and when (keys without the MANUAL_ prefix)', async () => {
    const r = aRedemption({ code: 'HIST-001', emailStatus: 'sent' });
    const event = (at: string, type: string, actor: string | null, description: string, more = {}) => ({
      at,
      type,
      actor,
      description,
      provider: null,
      error: null,
      licenseKey: null,
      ...more,
    });
    open(r, {
      [`GET /api/redemptions/${r.id}/history`]: () => ({
        status: 200,
        body: {
          redemptionId: r.id,
          exists: true,
          events: [
            event(
              '2025-09-01T10:00:00.000Z',
              'redeemed',
              'Customer',
              `Voucher HIST-001 redeemed by ${r.customer.email}`,
            ),
            event('2025-09-01T11:00:00.000Z', 'key-assigned', 'operator', 'License key assigned by hand', {
              licenseKey: 'MANUAL_ABCDE-•••••-UVWXY',
            }),
            event(
              '2025-09-01T11:00:01.000Z',
              'email-failed',
              'System',
              `E-mail attempt failed to ${r.customer.email} via primary`,
              { provider: 'primary', error: 'connection refused' },
            ),
            event('2025-09-02T09:30:00.000Z', 'email-resent', 'admin', 'Order e-mail sent again on request'),
            event('2025-09-03T08:00:00.000Z', 'exported', null, 'Exported (selected-redemptions)'),
          ],
        },
      }),
    });
    const history = await within(await screen.findByRole('region', { name: 'History' })).findByRole('list', {
      name: 'Redemption history',
    });
    const items = within(history).getAllByRole('listitem');
    expect(items.map((item) => item.getAttribute('data-event-type'))).toEqual([
      'exported',
      'email-resent',
      'email-failed',
      'key-assigned',
      'redeemed',
    ]);
    expect(items[0]).toHaveTextContent('Exported (selected-redemptions)');
    expect(items[0]).toHaveTextContent('by an unknown user');
    expect(items[0]).toHaveTextContent(new Date('2025-09-03T08:00:00.000Z').toLocaleString());
    expect(items[1]).toHaveTextContent('Order e-mail sent again on request');
    expect(items[1]).toHaveTextContent('by admin');
    expect(items[2]).toHaveTextContent('via primary');
    expect(items[2]).toHaveTextContent('connection refused');
    expect(items[3]).toHaveTextContent('by operator · key ABCDE-•••••-UVWXY');
    expect(items[3]).not.toHaveTextContent('MANUAL_');
    expect(items[4]).toHaveTextContent('by Customer');
  });

  it('says so when the History cannot be loaded, and the rest of the modal stays', async () => {
    const r = aRedemption({ code: 'HIST-002' });
    open(r, {
      [`GET /api/redemptions/${r.id}/history`]: () => ({
        status: 500,
        body: { statusCode: 500, message: 'boom', error: 'Internal Server Error' },
      }),
    });
    expect(
      await within(await screen.findByRole('region', { name: 'History' })).findByText(
        'The history could not be loaded.',
      ),
    ).toBeInTheDocument();
    expect(section('Product Information')).toHaveTextContent('HIST-002');
  });

  it('shows every section; a MANUAL_ key is shown without its prefix', async () => {
    const r = aRedemption({
      code: 'DETAIL-001',
      emailStatus: 'sent',
      assignedLicenseKey: { licenseKey: 'MANUAL_ABCDE-12345-FGHIJ', downloadLink: 'https://dl.example.com/office.exe' },
    });
    open(r);
    await screen.findByRole('dialog', { name: /Redemption Details/ });
    expect(section('Customer Information')).toHaveTextContent(`Ann ${r.customer.lastName}`);
    expect(section('Customer Information')).toHaveTextContent(r.customer.email);
    expect(section('Customer Information')).toHaveTextContent('Not provided');
    expect(section('Product Information')).toHaveTextContent('Office 2024 Professional Plus (Windows)');
    expect(section('Product Information')).toHaveTextContent('DETAIL-001');
    expect(within(section('License Key')).getByTestId('details-license-key')).toHaveTextContent(/^ABCDE-12345-FGHIJ$/);
    expect(screen.getByRole('dialog')).not.toHaveTextContent('MANUAL_');
    expect(screen.queryByRole('region', { name: 'License Activation' })).not.toBeInTheDocument();
    expect(within(section('Download Link')).getByRole('link')).toHaveAttribute(
      'href',
      'https://dl.example.com/office.exe',
    );
    expect(section('Redemption Status')).toHaveTextContent('sent');
    await waitFor(() =>
      expect(within(section('Redemption Status')).getByRole('button', { name: 'Resend Email' })).toBeInTheDocument(),
    );
  });

  it('Mac products have no licence key section but a License Activation section', async () => {
    open(
      aRedemption({
        code: 'MAC-00001',
        product: { id: '33333333-3333-4333-8333-333333333333', name: 'Office 2024 Home & Business (Mac)' },
      }),
    );
    await screen.findByRole('dialog');
    expect(screen.queryByRole('region', { name: 'License Key' })).not.toBeInTheDocument();
    expect(section('License Activation')).toHaveTextContent(/activated automatically/);
    expect(screen.queryByRole('button', { name: /Assign License|Edit License/ })).not.toBeInTheDocument();
    expect(section('License Activation')).toHaveTextContent(/No licence package link yet/);
  });

  it('a Mac redemption shows its licence package link, the one its order e-mail gives (docs/product.md §12.7)', async () => {
    const link = 'https://downloads.example.com/mac/licence-package.pkg';
    open(
      aRedemption({
        code: 'MAC-00002',
        product: { id: '33333333-3333-4333-8333-333333333333', name: 'Office 2024 Home & Business (Mac)' },
        activationLink: link,
      }),
    );
    await screen.findByRole('dialog');
    const package_ = within(section('License Activation')).getByRole('link', { name: link });
    expect(package_).toHaveAttribute('href', link);
    expect(package_).toHaveAttribute('target', '_blank');
  });

  it('manual assignment: Save is disabled while a field is empty, blanks alone say "Invalid input", sends trimmed values, Cancel returns to view', async () => {
    const r = aRedemption({ code: 'MANUAL-001', isManualProcessing: true });
    const assigned: AdminRedemption = {
      ...r,
      isManualProcessing: false,
      emailStatus: 'pending',
      assignedLicenseKey: { licenseKey: 'MANUAL_NEW-KEY-777', downloadLink: 'https://dl.example.com/new.exe' },
    };
    let current: AdminRedemption = r;
    const { user } = open(r, {
      [`GET /api/redemptions/${r.id}`]: () => ({ status: 200, body: current }),
      [`POST /api/redemptions/${r.id}/assign-license`]: () => {
        current = assigned;
        return { status: 200, body: assigned };
      },
    });
    await screen.findByRole('dialog');
    expect(section('License Key')).toHaveTextContent('No license key assigned yet (manual processing).');

    await user.click(await screen.findByRole('button', { name: 'Assign License' }));
    const key = within(section('License Key')).getByRole('textbox', { name: /License Key/ });
    const link = within(section('License Key')).getByRole('textbox', { name: /Download Link/ });
    const save = within(section('License Key')).getByRole('button', { name: 'Save' });
    expect(save).toBeDisabled();
    fireEvent.change(key, { target: { value: '   ' } });
    expect(screen.getByText('License key is required.')).toBeInTheDocument();
    // docs/product.md §9.3 "Bad input": blanks pass the button and are refused with "Invalid input", nothing sent.
    fireEvent.change(link, { target: { value: 'https://dl.example.com/new.exe' } });
    expect(save).toBeEnabled();
    await user.click(save);
    await waitFor(() => expect(toasts()).toHaveTextContent('Invalid input'));
    expect(toasts()).toHaveTextContent('License key is required.');
    expect(server.of('POST', `/api/redemptions/${r.id}/assign-license`)).toHaveLength(0);
    // A url input drops surrounding blanks itself (value sanitisation), so blank it from a value.
    fireEvent.change(link, { target: { value: 'x' } });
    fireEvent.change(link, { target: { value: '  ' } });
    expect(screen.getByText('Download link is required.')).toBeInTheDocument();
    fireEvent.change(key, { target: { value: '  NEW-KEY-777 ' } });
    expect(save).toBeDisabled();
    act(() => resetToasts());
    fireEvent.change(link, { target: { value: ' https://dl.example.com/new.exe ' } });
    expect(save).toBeEnabled();

    await user.click(within(section('License Key')).getByRole('button', { name: 'Cancel' }));
    expect(within(section('License Key')).queryByRole('textbox')).not.toBeInTheDocument();
    expect(server.of('POST', `/api/redemptions/${r.id}/assign-license`)).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Assign License' }));
    fireEvent.change(within(section('License Key')).getByRole('textbox', { name: /License Key/ }), {
      target: { value: '  NEW-KEY-777 ' },
    });
    fireEvent.change(within(section('License Key')).getByRole('textbox', { name: /Download Link/ }), {
      target: { value: ' https://dl.example.com/new.exe ' },
    });
    await user.click(within(section('License Key')).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('License assigned successfully'));
    expect(server.of('POST', `/api/redemptions/${r.id}/assign-license`)[0].body).toEqual({
      licenseKey: 'NEW-KEY-777',
      downloadLink: 'https://dl.example.com/new.exe',
    });
    await waitFor(() =>
      expect(within(section('License Key')).getByTestId('details-license-key')).toHaveTextContent(/^NEW-KEY-777$/),
    );
  });

  it('editing an assigned key starts from the key without MANUAL_; a refused assignment toasts the server message', async () => {
    const r = aRedemption({
      code: 'EDIT-0001',
      assignedLicenseKey: { licenseKey: 'MANUAL_OLD-KEY-1', downloadLink: 'https://dl.example.com/old.exe' },
    });
    const { user } = open(r, {
      [`POST /api/redemptions/${r.id}/assign-license`]: () => ({
        status: 400,
        body: { statusCode: 400, message: 'Must be a valid URL', error: 'Bad Request' },
      }),
    });
    await user.click(await screen.findByRole('button', { name: 'Edit License' }));
    expect(within(section('License Key')).getByRole('textbox', { name: /License Key/ })).toHaveValue('OLD-KEY-1');
    fireEvent.change(within(section('License Key')).getByRole('textbox', { name: /Download Link/ }), {
      target: { value: 'not a url' },
    });
    await user.click(within(section('License Key')).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to assign license'));
    expect(toasts()).toHaveTextContent('Must be a valid URL');
    // Still editing, with the typed values kept (the details may refetch meanwhile).
    await waitFor(() =>
      expect(within(section('License Key')).getByRole('button', { name: 'Save' })).toBeInTheDocument(),
    );
  });

  it('Resend Email says "Email sent successfully", or docs/product.md §9.3\'s modal wording "Failed to send email" with the reason or its fallback', async () => {
    const r = aRedemption({
      code: 'RESEND-01',
      assignedLicenseKey: { licenseKey: 'POOL-KEY-1', downloadLink: 'https://dl.example.com/a.exe' },
    });
    let fail: 'no' | 'message' | 'bare' = 'no';
    const { user } = open(r, {
      [`POST /api/redemptions/${r.id}/resend-email`]: () =>
        fail === 'message'
          ? {
              status: 409,
              body: { statusCode: 409, message: 'This redemption has no license key yet.', error: 'Conflict' },
            }
          : fail === 'bare'
            ? Promise.reject(new TypeError('Failed to fetch'))
            : { status: 200, body: { success: true, message: 'Email queued for sending' } },
    });
    await user.click(await screen.findByRole('button', { name: 'Resend Email' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Email sent successfully'));
    fail = 'message';
    // The details refetch after a resend; the button is back (enabled) once they have.
    const again = await screen.findByRole('button', { name: 'Resend Email' });
    await waitFor(() => expect(again).toBeEnabled());
    await user.click(again);
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to send email'));
    expect(toasts()).toHaveTextContent('This redemption has no license key yet.');
    expect(toasts()).not.toHaveTextContent('Failed to Send Email');
    fail = 'bare';
    act(() => resetToasts());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Resend Email' })).toBeEnabled());
    await user.click(screen.getByRole('button', { name: 'Resend Email' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to send email'));
    // No answer at all: the modal's fallback.
    expect(toasts()).toHaveTextContent('There was an error sending the email.');
    expect(toasts()).not.toHaveTextContent('Please try again.');
  });

  it('a user without permissions sees no assign or resend controls', async () => {
    open(aRedemption({ code: 'NOPERM-01' }), {}, 'shop-manager');
    await screen.findByRole('dialog');
    await permissionsApplied('shop-manager');
    expect(screen.queryByRole('button', { name: 'Assign License' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Resend Email' })).not.toBeInTheDocument();
  });
});
