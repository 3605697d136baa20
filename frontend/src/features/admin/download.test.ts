import { installAdminSession } from '../auth/session';
import { getAccessToken, storeTokens } from '../auth/tokenStorage';
import { adminServer } from '../redemptions/adminTestServer';
import { AUTH_REQUIRED_MESSAGE, downloadFile, filenameFromDisposition } from './download';

let server: ReturnType<typeof adminServer> | undefined;
beforeEach(() => installAdminSession());
afterEach(() => {
  server?.restore();
  localStorage.clear();
});

describe('file downloads', () => {
  it('read the filename from Content-Disposition', () => {
    expect(filenameFromDisposition('attachment; filename="selected-redemptions-2025-09-01.csv"')).toBe(
      'selected-redemptions-2025-09-01.csv',
    );
    expect(filenameFromDisposition('attachment; filename=codes.txt')).toBe('codes.txt');
    expect(filenameFromDisposition('attachment; filename*=UTF-8\'\'r%C3%A9sum%C3%A9.csv; filename="x.csv"')).toBe(
      'résumé.csv',
    );
    expect(filenameFromDisposition('attachment')).toBeUndefined();
    expect(filenameFromDisposition(null)).toBeUndefined();
  });

  it('need a stored admin token: "Authentication required"', async () => {
    server = adminServer({});
    await expect(downloadFile('/api/export/redeemed-vouchers?format=csv', undefined, 'x.csv')).rejects.toMatchObject({
      message: AUTH_REQUIRED_MESSAGE,
      status: 401,
    });
    expect(server.requests).toHaveLength(0);
  });

  it('send the bearer token and JSON body, and fail with the server message and status', async () => {
    storeTokens('tok-123');
    const seen: Headers[] = [];
    server = adminServer({
      'POST /api/export/selected-redemptions': () => ({
        status: 404,
        body: { statusCode: 404, message: 'No redemptions found to export.', error: 'Not Found' },
      }),
    });
    const inner = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      seen.push(new Headers(init?.headers));
      return inner(input, init);
    };
    try {
      await expect(
        downloadFile(
          '/api/export/selected-redemptions',
          { method: 'POST', body: JSON.stringify({ redemptionIds: ['a'], format: 'csv' }) },
          'selected.csv',
        ),
      ).rejects.toMatchObject({ message: 'No redemptions found to export.', status: 404 });
    } finally {
      globalThis.fetch = inner;
    }
    expect(seen[0].get('Authorization')).toBe('Bearer tok-123');
    expect(seen[0].get('Content-Type')).toBe('application/json');
    expect(server.requests[0].body).toEqual({ redemptionIds: ['a'], format: 'csv' });
  });

  it('renew an expired access token once and send again; a second refusal ends the session', async () => {
    storeTokens('old-token', 'refresh-1');
    let refused = 1;
    server = adminServer({
      'GET /api/export/redeemed-voucher-codes': (req) =>
        req.auth === 'Bearer new-token' && refused-- <= 0
          ? { status: 200, body: 'code\r\n', headers: { 'Content-Disposition': 'attachment; filename="codes.csv"' } }
          : { status: 401, body: { statusCode: 401, message: 'Invalid or expired token', error: 'Unauthorized' } },
      'POST /api/admin/refresh': () => ({
        status: 200,
        body: { accessToken: 'new-token', refreshToken: 'refresh-2', requiresTwoFactor: false },
      }),
    });
    Object.assign(URL, { createObjectURL: () => 'blob:test', revokeObjectURL: () => undefined });
    const click = jest.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(() => undefined);
    try {
      // The renewed token is refused once more: the session is over.
      await expect(
        downloadFile('/api/export/redeemed-voucher-codes?format=csv', undefined, 'x.csv'),
      ).rejects.toMatchObject({ status: 401 });
      expect(server.of('GET', '/api/export/redeemed-voucher-codes').map((r) => r.auth)).toEqual([
        'Bearer old-token',
        'Bearer new-token',
      ]);
      expect(getAccessToken()).toBeNull();

      storeTokens('old-token', 'refresh-2');
      await downloadFile('/api/export/redeemed-voucher-codes?format=csv', undefined, 'x.csv');
      expect(
        server
          .of('GET', '/api/export/redeemed-voucher-codes')
          .map((r) => r.auth)
          .slice(2),
      ).toEqual(['Bearer old-token', 'Bearer new-token']);
      expect(server.of('POST', '/api/admin/refresh').map((r) => r.body)).toEqual([
        { refreshToken: 'refresh-1' },
        { refreshToken: 'refresh-2' },
      ]);
      expect(click).toHaveBeenCalledTimes(1);
    } finally {
      click.mockRestore();
    }
  });
});
