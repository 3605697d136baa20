import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { aRedemption, pageOf } from './adminTestServer';
import { open, rowOf, server, setUpRedemptionsTab, toasts } from './redemptionsTabKit';

setUpRedemptionsTab();

describe('Recent Redemptions exports: what is asked for', () => {
  it('Export CSV of Recent Redemptions sends only the format, whatever the filter and search (docs/product.md §8.5)', async () => {
    jest.useFakeTimers();
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'ONLY-0001' })]) }),
      extra: {
        'GET /api/export/redeemed-vouchers': () => ({
          status: 200,
          body: 'Voucher Code\r\n',
          headers: { 'Content-Type': 'text/csv' },
        }),
      },
    });
    Object.assign(URL, { createObjectURL: () => 'blob:test', revokeObjectURL: () => undefined });
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    try {
      await screen.findByText('ONLY-0001');
      fireEvent.change(screen.getByRole('textbox', { name: 'Search redemptions' }), { target: { value: 'ann' } });
      act(() => jest.advanceTimersByTime(500));
      await user.click(screen.getByRole('combobox', { name: 'Email Status' }));
      await user.click(screen.getByRole('option', { name: 'Failed' }));
      await waitFor(() => expect(server.of('GET', '/api/redemptions').at(-1)!.query.get('emailStatus')).toBe('failed'));
      await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
      await waitFor(() => expect(server.of('GET', '/api/export/redeemed-vouchers')).toHaveLength(1));
      expect(server.of('GET', '/api/export/redeemed-vouchers')[0].query.toString()).toBe('format=csv');
      await waitFor(() => expect(toasts()).toHaveTextContent('Export Successful'));
    } finally {
      click.mockRestore();
    }
  });

  it('a failed export shows the server message', async () => {
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'EXP-00001' })]) }),
      extra: {
        'GET /api/export/redeemed-vouchers': () => ({
          status: 404,
          body: { statusCode: 404, message: 'No redeemed vouchers found to export.', error: 'Not Found' },
        }),
      },
    });
    await screen.findByText('EXP-00001');
    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Export failed');
    expect(alert).toHaveTextContent('No redeemed vouchers found to export.');
    const req = server.of('GET', '/api/export/redeemed-vouchers')[0];
    expect(req.query.get('format')).toBe('csv');
  });
});

describe('Recent Redemptions exports: the saved file', () => {
  const saved: string[] = [];
  let click: jest.SpyInstance;
  beforeEach(() => {
    saved.length = 0;
    // jsdom has no blob URLs and no downloads: record the name the file would be saved under.
    Object.assign(URL, { createObjectURL: () => 'blob:test', revokeObjectURL: () => undefined });
    click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
      saved.push(this.download);
    });
  });
  afterEach(() => click.mockRestore());

  const csvFile = (name: string) => ({
    status: 200,
    body: 'Voucher Code\r\nX\r\n',
    headers: { 'Content-Type': 'text/csv', 'Content-Disposition': `attachment; filename="${name}"` },
  });

  it("Export Selected TXT posts the selected ids, saves the server's filename, clears the selection and reloads the list", async () => {
    const a = aRedemption({ code: 'SEL-00001' });
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([a]) }),
      extra: { 'POST /api/export/selected-redemptions': () => csvFile('selected-redemptions-2025-09-01.txt') },
    });
    await screen.findByText('SEL-00001');
    await user.click(within(rowOf('SEL-00001')).getByRole('checkbox'));
    const listCalls = server.of('GET', '/api/redemptions').length;
    await user.click(screen.getByRole('button', { name: 'Export Selected TXT' }));
    await waitFor(() => expect(saved).toEqual(['selected-redemptions-2025-09-01.txt']));
    expect(server.of('POST', '/api/export/selected-redemptions')[0].body).toEqual({
      redemptionIds: [a.id],
      format: 'txt',
    });
    await waitFor(() => expect(toasts()).toHaveTextContent('Export Successful'));
    expect(screen.queryByRole('region', { name: 'Selection' })).not.toBeInTheDocument();
    await waitFor(() => expect(server.of('GET', '/api/redemptions').length).toBeGreaterThan(listCalls));
  });

  it.each(['csv', 'txt'])(
    "Export Redeemed Codes %s asks for that format and saves the server's file",
    async (format) => {
      const { user } = open(false, {
        list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'RCD-00001' })]) }),
        extra: {
          'GET /api/export/redeemed-voucher-codes': () => csvFile(`redeemed-voucher-codes-2025-09-01.${format}`),
        },
      });
      await screen.findByText('RCD-00001');
      await user.click(await screen.findByRole('button', { name: `Export Redeemed Codes ${format.toUpperCase()}` }));
      await waitFor(() => expect(saved).toEqual([`redeemed-voucher-codes-2025-09-01.${format}`]));
      expect(server.of('GET', '/api/export/redeemed-voucher-codes')[0].query.toString()).toBe(`format=${format}`);
      await waitFor(() => expect(toasts()).toHaveTextContent('Export Successful'));
    },
  );

  it('Export CSV of the exported tab sends its filter; a 401 renews the access token once and tries again', async () => {
    let calls = 0;
    const { user } = open(true, {
      list: () => ({
        status: 200,
        body: pageOf([aRedemption({ code: 'EXPD-0009', exported: true, exportedAt: '2025-09-02T12:00:00.000Z' })]),
      }),
      extra: {
        'GET /api/export/redeemed-vouchers': () =>
          ++calls === 1
            ? { status: 401, body: { statusCode: 401, message: 'Unauthorized', error: 'Unauthorized' } }
            : csvFile('redeemed-vouchers-2025-09-01.csv'),
        'POST /api/admin/refresh': () => ({
          status: 200,
          body: { accessToken: 'test-token-2', refreshToken: 'refresh-2', requiresTwoFactor: false },
        }),
      },
    });
    await screen.findByText('EXPD-0009');
    await user.click(screen.getByRole('combobox', { name: 'Email Status' }));
    await user.click(screen.getByRole('option', { name: 'Sent' }));
    await user.click(await screen.findByRole('button', { name: 'Export CSV' }));
    await waitFor(() => expect(saved).toEqual(['redeemed-vouchers-2025-09-01.csv']));
    const [first, second] = server.of('GET', '/api/export/redeemed-vouchers');
    expect(Object.fromEntries(second.query)).toEqual({ format: 'csv', emailStatus: 'sent', showExported: 'true' });
    expect(first.query.toString()).toBe(second.query.toString());
    expect([first.auth, second.auth]).toEqual(['Bearer test-token', 'Bearer test-token-2']);
    expect(server.of('POST', '/api/admin/refresh').map((r) => r.body)).toEqual([{ refreshToken: 'refresh-1' }]);
  });

  it('without a stored token an export says "Authentication required"', async () => {
    const { user } = open(false, { list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'NOTOK-001' })]) }) });
    await screen.findByText('NOTOK-001');
    const exportCsv = await screen.findByRole('button', { name: 'Export CSV' });
    localStorage.clear();
    await user.click(exportCsv);
    await waitFor(() => expect(toasts()).toHaveTextContent('Authentication required'));
    expect(server.of('GET', '/api/export/redeemed-vouchers')).toHaveLength(0);
  });
});
