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
      expect.arrayContaining([
        '/api/redeem-voucher',
        '/api/success-token/{token}',
        '/api/resend-order-email',
        '/api/products/{id}/voucher-codes/void',
        '/api/admin/login',
        '/api/redemptions',
      ]),
    );
    // The refunds route takes a JSON list or a file; the redeem route documents its idempotent 200 and the 410.
    expect(
      Object.keys(doc.body.paths['/api/products/{id}/voucher-codes/void'].post.requestBody.content).sort(),
    ).toEqual(['application/json', 'multipart/form-data']);
    expect(Object.keys(doc.body.paths['/api/redeem-voucher'].post.responses)).toEqual(
      expect.arrayContaining(['200', '201', '410']),
    );
    expect(Object.keys(doc.body.paths['/api/resend-order-email'].post.responses)).toContain('202');
  });

  it('gives every response a request id (its own or the caller’s) and helmet headers', async () => {
    const res = await t.http().get('/api/public-config').expect(200);
    expect(res.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['x-powered-by']).toBeUndefined();
    const mine = await t.http().get('/api/public-config').set('x-request-id', 'trace-123').expect(200);
    expect(mine.headers['x-request-id']).toBe('trace-123');
  });

  it('lets no API answer be stored or revalidated: reads, writes and errors', async () => {
    const answers = await Promise.all([
      t.http().get('/api/public-config').expect(200),
      t.http().post('/api/admin/login').send({ username: 'nobody', password: 'wrong-password' }).expect(401),
      t.http().get('/api/no-such-thing').expect(404),
      t.http().get('/api/redemptions').expect(401),
    ]);
    for (const res of answers) {
      expect(res.headers['cache-control']).toBe('no-store');
      expect(res.headers.etag).toBeUndefined();
    }
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
