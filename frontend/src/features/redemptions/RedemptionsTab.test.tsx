import { act, fireEvent, screen, waitFor, within } from '@testing-library/react';
import { aRedemption, pageOf } from './adminTestServer';
import { pageOfText, pageWindow, showingText } from '../../components/pagination/pageItems';
import { TAGS_BY_EVENT } from '../admin/realtime';
import { redemptionListParams } from './redemptionsApi';
import { open, rowOf, server, setUpRedemptionsTab, table, toasts } from './redemptionsTabKit';

setUpRedemptionsTab();

describe('page buttons and "showing" text', () => {
  it('shows up to 5 page buttons around the current page, kept inside the range', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(1, 10)).toEqual([1, 2, 3, 4, 5]);
    expect(pageWindow(5, 10)).toEqual([3, 4, 5, 6, 7]);
    expect(pageWindow(9, 10)).toEqual([6, 7, 8, 9, 10]);
    expect(pageWindow(10, 10)).toEqual([6, 7, 8, 9, 10]);
    expect(pageWindow(1, 0)).toEqual([]);
  });

  it('says "Showing x-y of total"', () => {
    expect(showingText({ currentPage: 1, limit: 50, totalCount: 120 })).toBe('Showing 1-50 of 120');
    expect(showingText({ currentPage: 3, limit: 50, totalCount: 120 })).toBe('Showing 101-120 of 120');
    expect(showingText({ currentPage: 1, limit: 50, totalCount: 0 })).toBe('Showing 0-0 of 0');
  });

  it('says "about N" for an estimated total, the count as it is for an exact one', () => {
    expect(showingText({ currentPage: 1, limit: 50, totalCount: 150000, totalCountExact: false })).toBe(
      'Showing 1-50 of about 150,000',
    );
    expect(showingText({ currentPage: 1, limit: 50, totalCount: 1200, totalCountExact: true })).toBe(
      'Showing 1-50 of 1200',
    );
    expect(pageOfText(1, 1500, false)).toBe('Page 1 of about 1,500');
    expect(pageOfText(2, 3)).toBe('Page 2 of 3');
  });
});

describe('Recent Redemptions tab', () => {
  it('lists redemptions with the columns of docs/product.md §3.5, status colours and the numbered pagination', async () => {
    const rows = [
      aRedemption({ code: 'SENT-0001', emailStatus: 'sent' }),
      aRedemption({ code: 'FAIL-0001', emailStatus: 'failed' }),
      aRedemption({ code: 'PEND-0001', emailStatus: 'pending' }),
    ];
    const { user } = open(false, {
      list: (req) => ({ status: 200, body: pageOf(rows, { page: Number(req.query.get('page')), totalCount: 120 }) }),
    });
    await screen.findByText('SENT-0001');
    const headers = within(table())
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual(['', 'Voucher Code', 'Customer', 'Product', 'Email Status', 'Redeemed At', 'Actions']);
    expect(within(rowOf('SENT-0001')).getByText('sent').closest('[data-color]')).toHaveAttribute(
      'data-color',
      'success',
    );
    expect(within(rowOf('FAIL-0001')).getByText('failed').closest('[data-color]')).toHaveAttribute(
      'data-color',
      'error',
    );
    expect(within(rowOf('PEND-0001')).getByText('pending').closest('[data-color]')).toHaveAttribute(
      'data-color',
      'warning',
    );

    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Showing 1-50 of 120');
    expect(
      within(nav)
        .getAllByRole('button', { name: /^Page \d+$/ })
        .map((b) => b.textContent),
    ).toEqual(['1', '2', '3']);
    expect(within(nav).getByRole('button', { name: 'Previous' })).toBeDisabled();
    expect(server.of('GET', '/api/redemptions')[0].query.toString()).toBe('page=1&limit=50&showExported=false');

    await user.click(within(nav).getByRole('button', { name: 'Page 3' }));
    await waitFor(() => expect(nav).toHaveTextContent('Showing 101-120 of 120'));
    expect(within(nav).getByRole('button', { name: 'Next' })).toBeDisabled();
    expect(within(nav).getByRole('button', { name: 'Page 3' })).toHaveAttribute('aria-current', 'page');
  });

  it('shows an estimated total as one: "Showing 1-50 of about 150,000", pages followed by hasNextPage', async () => {
    const rows = [aRedemption({ code: 'MANY-0001' })];
    open(false, {
      list: (req) => ({
        status: 200,
        body: pageOf(rows, { page: Number(req.query.get('page')), totalCount: 150000, totalCountExact: false }),
      }),
    });
    await screen.findByText('MANY-0001');
    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Showing 1-50 of about 150,000');
    expect(nav).not.toHaveTextContent('of 150000');
    expect(within(nav).getByRole('button', { name: 'Next' })).toBeEnabled();
  });

  it('shows the empty message', async () => {
    open(false, { list: () => ({ status: 200, body: pageOf([]) }) });
    expect(
      await screen.findByText(
        'No redemptions found. Redemptions will appear here once customers start redeeming vouchers.',
      ),
    ).toBeInTheDocument();
    expect(screen.queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it('searches 500 ms after typing stops, trimmed, and sends no search for blank text; filters by e-mail status', async () => {
    // The debounce runs on Jest's clock, so "not before 500 ms" holds however loaded the machine is.
    jest.useFakeTimers();
    const { user } = open(false, { list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'ANY-00001' })]) }) });
    await screen.findByText('ANY-00001');
    const searches = () => server.of('GET', '/api/redemptions').filter((r) => r.query.has('search'));
    fireEvent.change(screen.getByRole('textbox', { name: 'Search redemptions' }), { target: { value: '  ann lee  ' } });
    act(() => jest.advanceTimersByTime(499));
    expect(searches()).toEqual([]);
    act(() => jest.advanceTimersByTime(1));
    await waitFor(() => expect(server.of('GET', '/api/redemptions').at(-1)!.query.get('search')).toBe('ann lee'));

    // Blank text means no search: well past the debounce, no request carries a blank search.
    fireEvent.change(screen.getByRole('textbox', { name: 'Search redemptions' }), { target: { value: '   ' } });
    act(() => jest.advanceTimersByTime(1000));
    expect(
      server
        .of('GET', '/api/redemptions')
        .every((r) => r.query.get('search') !== '' && r.query.get('search') !== '   '),
    ).toBe(true);
    expect(redemptionListParams({ emailStatus: 'all', showExported: false, search: '   ' })).toEqual({
      showExported: 'false',
    });
    expect(
      redemptionListParams({ emailStatus: 'sent', showExported: true, search: ' x ', page: 2, limit: 50 }),
    ).toEqual({ page: '2', limit: '50', emailStatus: 'sent', showExported: 'true', search: 'x' });

    await user.click(screen.getByRole('combobox', { name: 'Email Status' }));
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['All', 'Pending', 'Sent', 'Failed']);
    await user.click(screen.getByRole('option', { name: 'Failed' }));
    await waitFor(() => expect(server.of('GET', '/api/redemptions').at(-1)!.query.get('emailStatus')).toBe('failed'));
    expect(server.of('GET', '/api/redemptions').at(-1)!.query.get('page')).toBe('1');
  });

  it('a redemption with a licence key or held for review cannot be selected; select-all takes the others; Delete Selected asks with the confirmation text', async () => {
    const free1 = aRedemption({ code: 'FREE-0001' });
    const free2 = aRedemption({ code: 'FREE-0002' });
    const keyed = aRedemption({
      code: 'KEYED-001',
      assignedLicenseKey: { licenseKey: 'ABCDE-12345', downloadLink: 'https://dl.example.com/x' },
    });
    const held = aRedemption({ code: 'HELD-0001', isManualProcessing: true, heldForReview: true });
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([free1, keyed, held, free2]) }),
      extra: {
        'POST /api/redemptions/bulk-delete': (req) => ({
          status: 200,
          body: { deletedCount: (req.body as { redemptionIds: string[] }).redemptionIds.length },
        }),
      },
    });
    await screen.findByText('FREE-0001');
    expect(within(rowOf('KEYED-001')).getByRole('checkbox')).toBeDisabled();
    expect(within(rowOf('HELD-0001')).getByRole('checkbox')).toBeDisabled();
    expect(screen.queryByRole('region', { name: 'Selection' })).not.toBeInTheDocument();

    await user.click(screen.getByRole('checkbox', { name: 'Select all on this page' }));
    const bar = screen.getByRole('region', { name: 'Selection' });
    expect(bar).toHaveTextContent('2 selected');
    expect(within(rowOf('KEYED-001')).getByRole('checkbox')).not.toBeChecked();
    expect(within(rowOf('HELD-0001')).getByRole('checkbox')).not.toBeChecked();
    for (const name of [
      'Clear Selection',
      'Export Selected CSV',
      'Export Selected TXT',
      'Assign Licenses',
      'Delete Selected',
    ]) {
      expect(within(bar).getByRole('button', { name })).toBeInTheDocument();
    }

    await user.click(within(bar).getByRole('button', { name: 'Delete Selected' }));
    const dialog = screen.getByRole('dialog');
    expect(dialog).toHaveTextContent('Are you sure you want to delete 2 redemption(s)? This action cannot be undone.');
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(server.of('POST', '/api/redemptions/bulk-delete')).toHaveLength(1));
    expect(server.of('POST', '/api/redemptions/bulk-delete')[0].body).toEqual({ redemptionIds: [free1.id, free2.id] });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByRole('region', { name: 'Selection' })).not.toBeInTheDocument();
    expect(toasts()).toHaveTextContent('2 redemption(s) deleted.');

    await user.click(within(rowOf('FREE-0001')).getByRole('checkbox'));
    expect(screen.getByRole('region', { name: 'Selection' })).toHaveTextContent('1 selected');
    await user.click(screen.getByRole('button', { name: 'Clear Selection' }));
    expect(screen.queryByRole('region', { name: 'Selection' })).not.toBeInTheDocument();
  });

  it('the Assign Licenses dialog needs both fields after trim ("Invalid input" for blanks), warns, sends them trimmed and says "Assigning..."', async () => {
    let answer!: (v: { status: number; body: unknown }) => void;
    const a = aRedemption({ code: 'WAIT-0001', isManualProcessing: true });
    const b = aRedemption({ code: 'WAIT-0002', isManualProcessing: true });
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([a, b]) }),
      extra: { 'POST /api/redemptions/bulk-assign-license': () => new Promise((resolve) => (answer = resolve)) },
    });
    await screen.findByText('WAIT-0001');
    await user.click(screen.getByRole('checkbox', { name: 'Select all on this page' }));
    await user.click(screen.getByRole('button', { name: 'Assign Licenses' }));
    const dialog = screen.getByRole('dialog', { name: 'Assign Licenses' });
    expect(dialog).toHaveTextContent(
      /same license key and download link will be assigned to all 2 selected redemptions/,
    );
    expect(dialog).toHaveTextContent(/multiple activations/);
    const submit = within(dialog).getByRole('button', { name: 'Assign to 2 Redemptions' });
    expect(submit).toBeDisabled();
    const key = within(dialog).getByRole('textbox', { name: /License Key/ });
    const link = within(dialog).getByRole('textbox', { name: /Download Link/ });
    expect(key.tagName).toBe('TEXTAREA');
    expect(link).toHaveAttribute('type', 'url');
    fireEvent.change(key, { target: { value: '   ' } });
    fireEvent.blur(key);
    expect(within(dialog).getByText('License key is required.')).toBeInTheDocument();
    fireEvent.change(link, { target: { value: 'https://dl.example.com/office.exe' } });
    // docs/product.md §9.3 "Bad input": blanks alone pass the button and are refused with "Invalid input", nothing sent.
    expect(submit).toBeEnabled();
    await user.click(submit);
    await waitFor(() => expect(toasts()).toHaveTextContent('Invalid input'));
    expect(toasts()).toHaveTextContent('License key is required.');
    expect(server.of('POST', '/api/redemptions/bulk-assign-license')).toHaveLength(0);
    fireEvent.change(key, { target: { value: '  VOL-KEY-12345  ' } });
    expect(submit).toBeEnabled();
    fireEvent.change(link, { target: { value: 'x' } });
    fireEvent.change(link, { target: { value: '  ' } });
    fireEvent.blur(link);
    expect(submit).toBeDisabled();
    expect(within(dialog).getByText('Download link is required.')).toBeInTheDocument();
    fireEvent.change(link, { target: { value: ' https://dl.example.com/office.exe ' } });
    await user.click(submit);
    expect(await within(dialog).findByRole('button', { name: 'Assigning...' })).toBeDisabled();
    expect(server.of('POST', '/api/redemptions/bulk-assign-license')[0].body).toEqual({
      redemptionIds: [a.id, b.id],
      licenseKey: 'VOL-KEY-12345',
      downloadLink: 'https://dl.example.com/office.exe',
    });
    act(() => answer({ status: 200, body: { successCount: 2 } }));
    await waitFor(() => expect(toasts()).toHaveTextContent('License assigned successfully'));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  });

  it('a failed bulk assignment says so with the server message', async () => {
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'WAIT-0003' })]) }),
      extra: {
        'POST /api/redemptions/bulk-assign-license': () => ({
          status: 400,
          body: { statusCode: 400, message: 'Must be a valid URL', error: 'Bad Request' },
        }),
      },
    });
    await screen.findByText('WAIT-0003');
    await user.click(within(rowOf('WAIT-0003')).getByRole('checkbox'));
    await user.click(screen.getByRole('button', { name: 'Assign Licenses' }));
    const dialog = screen.getByRole('dialog');
    fireEvent.change(within(dialog).getByRole('textbox', { name: /License Key/ }), { target: { value: 'K-1' } });
    fireEvent.change(within(dialog).getByRole('textbox', { name: /Download Link/ }), { target: { value: 'nope' } });
    await user.click(within(dialog).getByRole('button', { name: 'Assign to 1 Redemptions' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to assign licenses to selected redemptions'));
    expect(toasts()).toHaveTextContent('Must be a valid URL');
    expect(screen.getByRole('dialog')).toBeInTheDocument();
  });

  it('admin sees Fix Pending Emails, exports and delete; resend and fix report their results', async () => {
    const r = aRedemption({ code: 'ADM-00001' });
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([r]) }),
      extra: {
        'POST /api/admin/fix-pending-emails': () => ({ status: 200, body: { fixedCount: 3, assignedCount: 1 } }),
        [`POST /api/redemptions/${r.id}/resend-email`]: () => ({
          status: 500,
          body: { statusCode: 500, message: 'SMTP down', error: 'Internal Server Error' },
        }),
      },
    });
    await screen.findByText('ADM-00001');
    await screen.findByRole('button', { name: 'Fix Pending Emails' });
    expect(screen.getByRole('button', { name: 'Export CSV' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export TXT' })).toBeInTheDocument();
    expect(within(rowOf('ADM-00001')).getByRole('button', { name: 'Delete ADM-00001' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Fix Pending Emails' }));
    expect(await screen.findByRole('status')).toHaveTextContent('3 email(s) queued, 1 license(s) assigned.');
    await user.click(within(rowOf('ADM-00001')).getByRole('button', { name: 'Resend email for ADM-00001' }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Failed to Send Email');
    // docs/product.md §9.3's sentence stays; the server's reason follows it.
    expect(alert).toHaveTextContent('There was an error sending the email. Please try again. SMTP down');
  });

  it("a resend from the row that gets no answer says docs/product.md §9.3's dashboard fallback", async () => {
    const r = aRedemption({ code: 'NET-00001' });
    const { user } = open(false, {
      list: () => ({ status: 200, body: pageOf([r]) }),
      extra: {
        [`POST /api/redemptions/${r.id}/resend-email`]: () => {
          throw new TypeError('Failed to fetch');
        },
      },
    });
    await screen.findByText('NET-00001');
    await user.click(within(rowOf('NET-00001')).getByRole('button', { name: 'Resend email for NET-00001' }));
    await waitFor(() => expect(toasts()).toHaveTextContent('Failed to Send Email'));
    expect(toasts()).toHaveTextContent('There was an error sending the email. Please try again.');
  });

  it("is not polled: only socket events and the user's own changes read the list again (docs/product.md §8.1)", async () => {
    jest.useFakeTimers();
    open(false, { list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'POLL-0001' })]) }) });
    await screen.findByText('POLL-0001');
    const reads = server.of('GET', '/api/redemptions').length;
    await act(async () => {
      await jest.advanceTimersByTimeAsync(60_000);
    });
    expect(server.of('GET', '/api/redemptions')).toHaveLength(reads);
    // What polling used to cover comes from the socket: a manual or Mac redemption (voucherUpdate) and an e-mail outcome.
    expect(TAGS_BY_EVENT.voucherUpdate).toContain('Redemptions');
    expect(TAGS_BY_EVENT.emailStatus).toContain('Redemptions');
  });

  it('an operator sees no delete, no customer-data export and no Fix Pending Emails, but may export selected rows and assign', async () => {
    const { user } = open(false, {
      role: 'operator',
      list: () => ({ status: 200, body: pageOf([aRedemption({ code: 'OPS-00001' })]) }),
    });
    await screen.findByText('OPS-00001');
    await waitFor(() => expect(screen.getByRole('button', { name: 'Export Redeemed Codes CSV' })).toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Export Redeemed Codes TXT' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Fix Pending Emails' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Export CSV' })).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    await user.click(within(rowOf('OPS-00001')).getByRole('checkbox'));
    const bar = screen.getByRole('region', { name: 'Selection' });
    expect(within(bar).getByRole('button', { name: 'Export Selected CSV' })).toBeInTheDocument();
    expect(within(bar).getByRole('button', { name: 'Assign Licenses' })).toBeInTheDocument();
    expect(within(bar).queryByRole('button', { name: 'Delete Selected' })).not.toBeInTheDocument();
  });
});

describe('Exported Vouchers tab', () => {
  it('adds Exported At ("Not available" when empty), has no select or delete, keeps view and resend, and pages with "Page x of y"', async () => {
    const rows = [
      aRedemption({ code: 'EXPD-0001', exported: true, exportedAt: '2025-09-02T12:00:00.000Z' }),
      aRedemption({ code: 'EXPD-0002', exported: true, exportedAt: null }),
    ];
    const { user } = open(true, {
      list: (req) => ({ status: 200, body: pageOf(rows, { page: Number(req.query.get('page')), totalCount: 140 }) }),
    });
    await screen.findByText('EXPD-0001');
    const headers = within(table())
      .getAllByRole('columnheader')
      .map((h) => h.textContent);
    expect(headers).toEqual([
      'Voucher Code',
      'Customer',
      'Product',
      'Email Status',
      'Redeemed At',
      'Exported At',
      'Actions',
    ]);
    expect(within(rowOf('EXPD-0002')).getByText('Not available')).toBeInTheDocument();
    expect(within(rowOf('EXPD-0001')).queryByText('Not available')).not.toBeInTheDocument();
    expect(screen.queryByRole('checkbox')).not.toBeInTheDocument();
    await waitFor(() =>
      expect(
        within(rowOf('EXPD-0001')).getByRole('button', { name: 'Resend email for EXPD-0001' }),
      ).toBeInTheDocument(),
    );
    expect(within(rowOf('EXPD-0001')).getByRole('button', { name: 'View details of EXPD-0001' })).toBeInTheDocument();
    expect(within(rowOf('EXPD-0001')).queryByRole('button', { name: /^Delete/ })).not.toBeInTheDocument();
    expect(server.of('GET', '/api/redemptions')[0].query.get('showExported')).toBe('true');

    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Page 1 of 3');
    expect(within(nav).queryByRole('button', { name: /^Page \d/ })).not.toBeInTheDocument();
    await user.click(within(nav).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(nav).toHaveTextContent('Page 2 of 3'));
    expect(server.of('GET', '/api/redemptions').at(-1)!.query.get('page')).toBe('2');
  });

  it('an estimated total reads "Page 1 of about 3,000"; Next follows hasNextPage', async () => {
    const rows = [aRedemption({ code: 'EXPD-9001', exported: true, exportedAt: '2025-09-02T12:00:00.000Z' })];
    let hasNextPage = true;
    const { user } = open(true, {
      list: (req) => {
        const body = pageOf(rows, { page: Number(req.query.get('page')), totalCount: 150000, totalCountExact: false });
        return { status: 200, body: { ...body, pagination: { ...body.pagination, hasNextPage } } };
      },
    });
    await screen.findByText('EXPD-9001');
    const nav = screen.getByRole('navigation', { name: 'Pagination' });
    expect(nav).toHaveTextContent('Page 1 of about 3,000');
    expect(within(nav).getByRole('button', { name: 'Next' })).toBeEnabled();
    // The estimate said 3,000 pages; the server's exact hasNextPage says this one is the last.
    hasNextPage = false;
    await user.click(within(nav).getByRole('button', { name: 'Next' }));
    await waitFor(() => expect(nav).toHaveTextContent('Page 2 of about 3,000'));
    await waitFor(() => expect(within(nav).getByRole('button', { name: 'Next' })).toBeDisabled());
  });

  it('shows the empty message', async () => {
    open(true, { list: () => ({ status: 200, body: pageOf([]) }) });
    expect(
      await screen.findByText('No exported vouchers found. Vouchers will appear here after they have been exported.'),
    ).toBeInTheDocument();
  });
});
