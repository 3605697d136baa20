import { execFile } from 'child_process';
import { createHash } from 'crypto';
import { Writable } from 'stream';
import { promisify } from 'util';
import { startTestApp, TestApp } from './helpers/app';
import { bearer, createAdminUser, issueToken, tokenFor } from './helpers/auth';
import { addCodes, productId, PRODUCTS, randomCode } from './helpers/factories';

const run = promisify(execFile);

/** Integrations' API tokens (docs/auth.md "API tokens"). */
describe('API tokens', () => {
  let t: TestApp;
  let admin: string;
  let product: string;
  const log: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      log.push(chunk.toString());
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'info', API_TOKEN_RATE_LIMIT: '8' }, { logStream });
    admin = await tokenFor(t, 'admin');
    product = await productId(t.db, PRODUCTS.proPlusWindows);
  });
  afterAll(() => t.close());

  const create = (permissions: string[], extra: Record<string, unknown> = {}, as = admin) =>
    t
      .http()
      .post('/api/admin/api-tokens')
      .set(bearer(as))
      .send({ name: `Shop ${randomCode('N')}`, permissions, ...extra });

  async function newToken(permissions: string[]): Promise<{ id: string; token: string }> {
    const res = await create(permissions).expect(201);
    return res.body;
  }

  it('creates a token shown once: ovr_ + 32 random bytes, stored as its SHA-256 only', async () => {
    const res = await create(['vouchers.view', 'dashboard.view'], { expiresInDays: 30 }).expect(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: expect.stringMatching(/^Shop /),
      token: expect.stringMatching(/^ovr_[A-Za-z0-9_-]{43}$/),
      permissions: ['dashboard.view', 'vouchers.view'],
      expiresAt: expect.any(String),
    });
    const days = (Date.parse(res.body.expiresAt) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThan(30.1);
    const [row] = await t.db.query(`SELECT token_hash FROM api_tokens WHERE id = $1`, [res.body.id]);
    expect(row.token_hash).toBe(createHash('sha256').update(res.body.token).digest('hex'));

    const list = await t.http().get('/api/admin/api-tokens').set(bearer(admin)).expect(200);
    const listed = list.body.find((x: { id: string }) => x.id === res.body.id);
    expect(listed).toEqual({
      id: res.body.id,
      name: res.body.name,
      permissions: ['dashboard.view', 'vouchers.view'],
      createdAt: expect.any(String),
      expiresAt: res.body.expiresAt,
      lastUsedAt: null,
      createdBy: expect.stringMatching(/^admin_/),
    });
    expect(JSON.stringify(list.body)).not.toContain(res.body.token);
  });

  it.each([
    [['settings.access']],
    [['vouchers.view', 'system.cleanup']],
    [['admin.create-shop-manager']],
    [['api-tokens.manage']],
    [['webhooks.manage']],
    [['no.such-permission']],
    [[]],
    ['vouchers.view'],
  ])('refuses permissions %j with 400, creating nothing', async (permissions) => {
    const [{ before }] = await t.db.query(`SELECT count(*)::int AS before FROM api_tokens`);
    const res = await create(permissions as string[]).expect(400);
    expect(res.body.message).toMatch(/^Permissions must be a non-empty list of data permissions: dashboard.view, /);
    const [{ after }] = await t.db.query(`SELECT count(*)::int AS after FROM api_tokens`);
    expect(after).toBe(before);
  });

  it('refuses a bad name or lifetime, and lets only admins manage tokens', async () => {
    expect((await create(['vouchers.view'], { name: '  ' }).expect(400)).body.message).toBe(
      'Name must be 1-100 characters',
    );
    expect((await create(['vouchers.view'], { expiresInDays: 0 }).expect(400)).body.message).toBe(
      'expiresInDays must be a whole number from 1 to 3650',
    );
    expect((await create(['vouchers.view'], { expiresInDays: 1.5 }).expect(400)).body.message).toBe(
      'expiresInDays must be a whole number from 1 to 3650',
    );
    const operator = await tokenFor(t, 'operator');
    await create(['vouchers.view'], {}, operator).expect(403);
    await t.http().get('/api/admin/api-tokens').set(bearer(operator)).expect(403);
  });

  it('vouchers.view reads a product’s codes but may not upload; account routes and token routes are closed to it', async () => {
    const [code] = await addCodes(t.db, product, [randomCode('TOK')]);
    const { id, token } = await newToken(['vouchers.view']);
    const codes = await t
      .http()
      .get(`/api/products/${product}/voucher-codes-detailed`)
      .query({ search: code })
      .set(bearer(token))
      .expect(200);
    expect(JSON.stringify(codes.body)).toContain(code);
    await t
      .http()
      .post(`/api/products/${product}/voucher-codes`)
      .set(bearer(token))
      .attach('file', Buffer.from(`${randomCode('UP')}\n`), 'codes.txt')
      .expect(403);
    for (const [method, path] of [
      ['get', '/api/admin/me'],
      ['get', '/api/admin/sessions'],
      ['post', '/api/admin/logout'],
      ['get', '/api/admin/api-tokens'],
      ['delete', '/api/admin/cleanup-redeemed'],
    ] as const) {
      const res = await t.http()[method](path).set(bearer(token));
      expect([path, res.status]).toEqual([path, 403]);
    }
    const denied = await t.db.query(
      `SELECT resource, details FROM security_audit_log WHERE action = 'permission.denied' AND resource_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(denied[0]).toEqual({
      resource: 'POST /api/products/:id/voucher-codes',
      details: expect.objectContaining({ apiTokenId: id, missing: ['vouchers.upload'] }),
    });
    expect(denied[1].details.reason).toBe('API tokens cannot use account routes');
  });

  it('audits every call with the token id and notes lastUsedAt at most once a minute', async () => {
    const { id, token } = await newToken(['dashboard.view']);
    await t.http().get('/api/stats/today').set(bearer(token)).expect(200);
    const [{ last_used_at: first }] = await t.db.query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [id]);
    expect(first).not.toBeNull();
    await t.http().get('/api/products').set(bearer(token)).expect(200);
    const [{ last_used_at: second }] = await t.db.query(`SELECT last_used_at FROM api_tokens WHERE id = $1`, [id]);
    expect(second).toEqual(first);
    const rows = await t.db.query(
      `SELECT resource, success FROM security_audit_log WHERE action = 'api-token.request' AND resource_id = $1 ORDER BY created_at`,
      [id],
    );
    expect(rows).toEqual([
      { resource: 'GET /api/stats/:period', success: true },
      { resource: 'GET /api/products', success: true },
    ]);
    // A minute later the next call notes the time again.
    await t.db.query(`UPDATE api_tokens SET last_used_at = now() - interval '2 minutes' WHERE id = $1`, [id]);
    await t.http().get('/api/products').set(bearer(token)).expect(200);
    const [{ fresh }] = await t.db.query(
      `SELECT last_used_at > now() - interval '10 seconds' AS fresh FROM api_tokens WHERE id = $1`,
      [id],
    );
    expect(fresh).toBe(true);
  });

  it('stops a revoked token at once (401), and a second revoke is 404', async () => {
    const { id, token } = await newToken(['dashboard.view']);
    await t.http().get('/api/products').set(bearer(token)).expect(200);
    await t.http().delete(`/api/admin/api-tokens/${id}`).set(bearer(admin)).expect(200, { success: true });
    const res = await t.http().get('/api/products').set(bearer(token)).expect(401);
    expect(res.body.message).toBe('Invalid or expired token');
    await t.http().delete(`/api/admin/api-tokens/${id}`).set(bearer(admin)).expect(404);
    await t.http().delete(`/api/admin/api-tokens/not-a-uuid`).set(bearer(admin)).expect(400);
    const list = await t.http().get('/api/admin/api-tokens').set(bearer(admin)).expect(200);
    expect(list.body.map((x: { id: string }) => x.id)).not.toContain(id);
    const [audit] = await t.db.query(
      `SELECT success FROM security_audit_log WHERE action = 'api-token.revoke' AND resource_id = $1`,
      [id],
    );
    expect(audit).toEqual({ success: true });
  });

  it('refuses an expired token, a token whose creator was deactivated, and a made-up one (401)', async () => {
    const expired = await newToken(['dashboard.view']);
    await t.db.query(`UPDATE api_tokens SET expires_at = now() - interval '1 second' WHERE id = $1`, [expired.id]);
    await t.http().get('/api/products').set(bearer(expired.token)).expect(401);

    const creator = await createAdminUser(t, { role: 'admin' });
    const mine = (await create(['dashboard.view'], {}, (await issueToken(t, creator.id)).token).expect(201)).body;
    await t.http().get('/api/products').set(bearer(mine.token)).expect(200);
    await t.db.query(`UPDATE admin_users SET is_active = false WHERE id = $1`, [creator.id]);
    await t.http().get('/api/products').set(bearer(mine.token)).expect(401);

    await t
      .http()
      .get('/api/products')
      .set(bearer(`ovr_${'A'.repeat(43)}`))
      .expect(401);
    await t.http().get('/api/products').set(bearer(`ovr_short`)).expect(401);
  });

  it('never does more than its creator’s role allows today', async () => {
    const creator = await createAdminUser(t, { role: 'admin' });
    const { token } = (
      await create(['dashboard.view', 'vouchers.view'], {}, (await issueToken(t, creator.id)).token).expect(201)
    ).body;
    await t.http().get(`/api/products/${product}/voucher-codes-detailed`).set(bearer(token)).expect(200);
    await t.db.query(`UPDATE admin_users SET role = 'shop-manager' WHERE id = $1`, [creator.id]);
    await t.http().get(`/api/products/${product}/voucher-codes-detailed`).set(bearer(token)).expect(403);
    await t.http().get('/api/products').set(bearer(token)).expect(200);
  });

  it('has its own rate limit per token (API_TOKEN_RATE_LIMIT a minute, then 429)', async () => {
    const busy = await newToken(['dashboard.view']);
    const other = await newToken(['dashboard.view']);
    for (let i = 0; i < 8; i++) await t.http().get('/api/products').set(bearer(busy.token)).expect(200);
    const res = await t.http().get('/api/products').set(bearer(busy.token)).expect(429);
    expect(res.body.message).toBe('Too many requests with this API token. Please slow down.');
    await t.http().get('/api/products').set(bearer(other.token)).expect(200);
  });

  it('leaves the token in no database dump and no log line', async () => {
    const { token } = await newToken(['dashboard.view']);
    await t.http().get('/api/products').set(bearer(token)).expect(200);
    const dump = (await run('pg_dump', ['--no-owner', t.database.url], { maxBuffer: 64 * 1024 * 1024 })).stdout;
    expect(dump).toContain(createHash('sha256').update(token).digest('hex'));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(token.slice(4));
    const text = log.join('');
    expect(text).toContain('/api/products'); // the request was logged
    expect(text).not.toContain(token.slice(4));
  });
});
