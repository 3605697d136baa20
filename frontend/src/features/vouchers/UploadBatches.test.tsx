import { act, screen, waitFor, within } from '@testing-library/react';
import { api } from '../../app/api';
import { Toaster } from '../../components/toast';
import { resetToasts } from '../../components/toast/toastStore';
import { PermissionsProbe, permissionsApplied } from '../../test/PermissionsProbe';
import { renderWithProviders } from '../../test/renderWithProviders';
import { installAdminSession } from '../auth/session';
import { adminServer, meOf, PRODUCT, signIn, type AdminHandler } from '../admin/adminTesting';
import { UploadBatches } from './UploadBatches';
import type { UploadBatch } from './vouchersApi';

let server: ReturnType<typeof adminServer>;

afterEach(() => {
  server?.restore();
  localStorage.clear();
  act(() => resetToasts());
});

const UPLOAD: UploadBatch = {
  id: '22222222-2222-4222-8222-222222222222',
  kind: 'upload',
  fileName: 'marketplace-november.csv',
  uploadedBy: 'operator',
  uploadedAt: '2026-11-20T09:00:00.000Z',
  inserted: 980,
  duplicates: 15,
  invalid: 5,
  refunded: 0,
  unknown: 0,
  failure: null,
  counts: { uploaded: 978, redeemed: 412, unredeemed: 560, void: 6, exported: 300 },
};
const VOID_FILE: UploadBatch = {
  id: '33333333-3333-4333-8333-333333333333',
  kind: 'void',
  fileName: 'refunds.csv',
  uploadedBy: 'admin',
  uploadedAt: '2026-11-21T09:00:00.000Z',
  inserted: 6,
  duplicates: 1,
  invalid: 0,
  refunded: 2,
  unknown: 1,
  failure: null,
  counts: null,
};
const BEFORE: UploadBatch = {
  id: PRODUCT.id,
  kind: 'before-batches',
  fileName: null,
  uploadedBy: null,
  uploadedAt: '2026-01-01T00:00:00.000Z',
  inserted: 120,
  duplicates: 0,
  invalid: 0,
  refunded: 0,
  unknown: 0,
  failure: null,
  counts: { uploaded: 120, redeemed: 3, unredeemed: 117, void: 0, exported: 1 },
};

function render(
  role: 'admin' | 'operator' | 'shop-manager',
  batches: () => UploadBatch[],
  extra: Record<string, AdminHandler> = {},
) {
  server = adminServer({
    'GET /api/admin/me': () => ({ status: 200, body: meOf(role) }),
    [`GET /api/products/${PRODUCT.id}/batches`]: () => ({ status: 200, body: batches() }),
    ...extra,
  });
  signIn();
  installAdminSession();
  return renderWithProviders(
    <>
      <UploadBatches productId={PRODUCT.id} />
      <PermissionsProbe />
      <Toaster />
    </>,
  );
}

const batchCalls = () => server.of('GET', `/api/products/${PRODUCT.id}/batches`);
const rowOf = (name: string) => screen.getByRole('rowheader', { name: new RegExp(`^${name}`) }).closest('tr')!;
const cells = (row: HTMLElement) =>
  within(row)
    .getAllByRole('cell')
    .map((c) => c.textContent);

describe('Batches section of the voucher codes page (docs/product.md §20.1)', () => {
  it('lists each batch with its counts under labelled headers; a void file has no counts of its own', async () => {
    render('admin', () => [VOID_FILE, UPLOAD, BEFORE]);
    const table = await screen.findByRole('table', { name: 'Batches' });
    expect(screen.getByRole('region', { name: 'Batches' })).toContainElement(table);
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual([
      'File',
      'Uploaded By',
      'Uploaded At',
      'Uploaded',
      'Redeemed',
      'Unredeemed',
      'Void',
      'Exported',
      'Reconciliation',
    ]);
    await within(table).findByText('marketplace-november.csv');
    expect(
      within(table)
        .getAllByRole('rowheader')
        .map((h) => h.textContent),
    ).toEqual([
      'refunds.csvVoid file6 codes voided, 2 refunded after redemption, 1 already void, 1 unknown',
      'marketplace-november.csv980 added, 15 duplicates, 5 invalid lines',
      'Before batchesCodes that came by no upload',
    ]);
    expect(
      cells(rowOf('marketplace-november.csv'))
        .slice(0, 1)
        .concat(cells(rowOf('marketplace-november.csv')).slice(2, 7)),
    ).toEqual(['operator', '978', '412', '560', '6', '300']);
    expect(cells(rowOf('refunds.csv')).slice(2, 7)).toEqual(['—', '—', '—', '—', '—']);
    expect(cells(rowOf('Before batches'))[0]).toBe('—');
  });

  it('shows an upload that failed after its load began with "Failed" and its reason (docs/product.md §20.6)', async () => {
    const reason = 'The upload was cut off before the whole file arrived. Nothing was added: upload the file again.';
    render('admin', () => [
      {
        ...UPLOAD,
        id: '44444444-4444-4444-8444-444444444444',
        fileName: 'cut-off.csv',
        inserted: 0,
        duplicates: 0,
        invalid: 0,
        failure: reason,
        counts: { uploaded: 0, redeemed: 0, unredeemed: 0, void: 0, exported: 0 },
      },
      UPLOAD,
    ]);
    await screen.findByText('cut-off.csv');
    expect(rowOf('cut-off.csv').querySelector('th')!.textContent).toBe(`cut-off.csvFailed${reason}`);
    expect(within(rowOf('marketplace-november.csv')).queryByText('Failed')).toBeNull();
  });

  it("downloads a batch's reconciliation CSV with the session's token", async () => {
    const { user } = render('admin', () => [UPLOAD], {
      [`GET /api/export/batch/${UPLOAD.id}`]: () => ({
        status: 200,
        body: 'Voucher Code,Status,Redeemed At,Exported At,Refunded At\r\n',
        headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="batch-2026-11-24.csv"' },
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
      await user.click(
        await screen.findByRole('button', { name: 'Download the reconciliation CSV of marketplace-november.csv' }),
      );
      expect(await screen.findByText('Export Successful')).toBeInTheDocument();
      const [call] = server.of('GET', `/api/export/batch/${UPLOAD.id}`);
      expect([call.query.get('format'), call.auth]).toEqual(['csv', 'Bearer access-1']);
      expect(saved).toEqual(['batch-2026-11-24.csv']);
    } finally {
      click.mockRestore();
    }
  });

  it('says why a download failed', async () => {
    const { user } = render('admin', () => [UPLOAD], {
      [`GET /api/export/batch/${UPLOAD.id}`]: () => ({
        status: 404,
        body: { statusCode: 404, message: 'No voucher codes in this batch.', error: 'Not Found' },
      }),
    });
    await user.click(await screen.findByRole('button', { name: /^Download the reconciliation CSV/ }));
    expect(await screen.findByText('Export Failed')).toBeInTheDocument();
    expect(screen.getByText('No voucher codes in this batch.')).toBeInTheDocument();
  });

  it('shows an operator the counts without the download (the file holds unredeemed codes)', async () => {
    render('operator', () => [UPLOAD]);
    await permissionsApplied('operator');
    const table = await screen.findByRole('table', { name: 'Batches' });
    await within(table).findByText('marketplace-november.csv');
    expect(within(table).queryByRole('columnheader', { name: 'Reconciliation' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Download/ })).not.toBeInTheDocument();
  });

  it('is hidden from a role without vouchers.view, which never asks for batches', async () => {
    render('shop-manager', () => [UPLOAD]);
    await permissionsApplied('shop-manager');
    expect(screen.queryByRole('region', { name: 'Batches' })).not.toBeInTheDocument();
    expect(batchCalls()).toHaveLength(0);
  });

  it('reads the batches again after an upload or a void (what both invalidate) and after a redemption export', async () => {
    let batches = [UPLOAD];
    const { store } = render('admin', () => batches);
    await screen.findByText('marketplace-november.csv');
    batches = [VOID_FILE, UPLOAD];
    // VoucherUpload and VoidCodesDialog invalidate the code lists once their file is in.
    act(() => {
      store.dispatch(api.util.invalidateTags([{ type: 'VoucherCodes', id: 'LIST' }]));
    });
    expect(await screen.findByText('refunds.csv')).toBeInTheDocument();
    const reads = batchCalls().length;
    act(() => {
      store.dispatch(api.util.invalidateTags([{ type: 'Redemptions', id: 'LIST' }]));
    });
    await waitFor(() => expect(batchCalls()).toHaveLength(reads + 1));
  });

  it('says so when a product has no batch yet', async () => {
    render('admin', () => []);
    expect(
      await screen.findByText('No batches yet: every upload and every void file appears here.'),
    ).toBeInTheDocument();
  });
});
