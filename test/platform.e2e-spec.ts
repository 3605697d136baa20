import { startTestApp, TestApp } from './helpers/app';

describe('platform', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('serves the OpenAPI page and document at /api/docs', async () => {
    const page = await t.http().get('/api/docs/').expect(200);
    expect(page.text).toContain('swagger');
    const doc = await t.http().get('/api/docs-json').expect(200);
    expect(Object.keys(doc.body.paths)).toEqual(
      expect.arrayContaining(['/api/redeem-voucher', '/api/success-token/{token}', '/api/admin/login', '/api/redemptions']),
    );
  });

  it('gives every response a request id (its own or the caller’s) and helmet headers', async () => {
    const res = await t.http().get('/api/public-config').expect(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const mine = await t.http().get('/api/public-config').set('x-request-id', 'trace-123').expect(200);
    expect(mine.headers['x-request-id']).toBe('trace-123');
  });

  it('answers unknown API paths with the error shape', async () => {
    const res = await t.http().get('/api/no-such-thing').expect(404);
    expect(res.body).toEqual({ statusCode: 404, message: expect.any(String), error: 'Not Found' });
  });

  it('reports database health', async () => {
    const res = await t.http().get('/api/health').expect(200);
    expect(res.body.info).toEqual({ database: expect.objectContaining({ status: 'up' }) });
  });
});
