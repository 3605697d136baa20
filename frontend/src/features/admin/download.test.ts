import { adminServer } from '../redemptions/adminTestServer';
import { AUTH_REQUIRED_MESSAGE, downloadFile, filenameFromDisposition } from './download';

let server: ReturnType<typeof adminServer> | undefined;
afterEach(() => {
  server?.restore();
  localStorage.clear();
});

describe('file downloads', () => {
  it('read the filename from Content-Disposition', () => {
    expect(filenameFromDisposition('attachment; filename="selected-redemptions-2025-09-01.csv"')).toBe('selected-redemptions-2025-09-01.csv');
    expect(filenameFromDisposition('attachment; filename=codes.txt')).toBe('codes.txt');
    expect(filenameFromDisposition("attachment; filename*=UTF-8''r%C3%A9sum%C3%A9.csv; filename=\"x.csv\"")).toBe('résumé.csv');
    expect(filenameFromDisposition('attachment')).toBeUndefined();
    expect(filenameFromDisposition(null)).toBeUndefined();
  });

  it('need a stored admin token: "Authentication required"', async () => {
    server = adminServer({});
    await expect(downloadFile('/api/export/redeemed-vouchers?format=csv', undefined, 'x.csv')).rejects.toMatchObject({ message: AUTH_REQUIRED_MESSAGE, status: 401 });
    expect(server.requests).toHaveLength(0);
  });

  it('send the bearer token and JSON body, and fail with the server message and status', async () => {
    localStorage.setItem('adminToken', 'tok-123');
    const seen: Headers[] = [];
    server = adminServer({
      'POST /api/export/selected-redemptions': () => ({ status: 404, body: { statusCode: 404, message: 'No redemptions found to export.', error: 'Not Found' } }),
    });
    const inner = globalThis.fetch;
    globalThis.fetch = (input, init) => {
      seen.push(new Headers(init?.headers));
      return inner(input, init);
    };
    try {
      await expect(
        downloadFile('/api/export/selected-redemptions', { method: 'POST', body: JSON.stringify({ redemptionIds: ['a'], format: 'csv' }) }, 'selected.csv'),
      ).rejects.toMatchObject({ message: 'No redemptions found to export.', status: 404 });
    } finally {
      globalThis.fetch = inner;
    }
    expect(seen[0].get('Authorization')).toBe('Bearer tok-123');
    expect(seen[0].get('Content-Type')).toBe('application/json');
    expect(server.requests[0].body).toEqual({ redemptionIds: ['a'], format: 'csv' });
  });
});
