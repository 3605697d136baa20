import { readdirSync } from 'fs';
import { get, IncomingHttpHeaders } from 'http';
import { join } from 'path';
import { brotliDecompressSync, gunzipSync } from 'zlib';
import { startTestApp, TestApp } from '../helpers/app';

/**
 * How the built web app reaches a phone: precompressed copies chosen by Accept-Encoding, hashed assets cached
 * for a year, index.html revalidated on every visit, a real robots.txt, and API JSON over 1 KB compressed.
 * (The project's global setup builds frontend/dist when it is stale.)
 */
describe('web delivery', () => {
  let t: TestApp;
  const assetsDir = join(__dirname, '..', '..', 'frontend', 'dist', 'assets');
  const script = readdirSync(assetsDir).find((f) => f.endsWith('.js') && !f.startsWith('rolldown-runtime'))!;

  /** The answer's bytes as sent, not decoded (supertest and fetch would decompress them). */
  const raw = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      get(`${t.baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

  beforeAll(async () => {
    t = await startTestApp({ SERVE_FRONTEND: 'true' });
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('sends index.html as Brotli when accepted, gzip otherwise, plain when neither, never cached without revalidation', async () => {
    const br = await raw('/', { 'Accept-Encoding': 'gzip, deflate, br' });
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['vary']).toMatch(/Accept-Encoding/i);
    expect(br.headers['content-type']).toMatch(/^text\/html/);
    expect(br.headers['cache-control']).toBe('no-cache');
    expect(br.headers['etag']).toBeTruthy();
    expect(brotliDecompressSync(br.body).toString()).toContain('<div id="root">');

    const gz = await raw('/', { 'Accept-Encoding': 'gzip' });
    expect(gz.status).toBe(200);
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(gz.body).toString()).toContain('<div id="root">');

    const plain = await raw('/', { 'Accept-Encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toContain('<div id="root">');

    const again = await raw('/', { 'Accept-Encoding': 'br', 'If-None-Match': String(br.headers['etag']) });
    expect(again.status).toBe(304);
  });

  it('serves the SPA routes as index.html, revalidated, and a missing chunk as 404 rather than HTML', async () => {
    const route = await t.http().get('/admin/login').set('Accept-Encoding', 'identity').expect(200);
    expect(route.headers['content-type']).toMatch(/^text\/html/);
    expect(route.headers['cache-control']).toBe('no-cache');
    await t.http().get('/assets/no-such-chunk-abc123.js').expect(404);
  });

  it('caches hashed assets for a year as immutable, compressed', async () => {
    const res = await raw(`/assets/${script}`, { 'Accept-Encoding': 'br' });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers['vary']).toMatch(/Accept-Encoding/i);
  });

  it('answers /robots.txt with rules, not the app page: public pages allowed, /admin and /api not', async () => {
    const res = await t.http().get('/robots.txt').expect(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toMatch(/^User-agent: \*$/m);
    expect(res.text).toMatch(/^Allow: \/$/m);
    expect(res.text).toMatch(/^Disallow: \/admin$/m);
    expect(res.text).toMatch(/^Disallow: \/api$/m);
  });

  it('compresses API JSON over 1 KB and leaves small answers alone', async () => {
    const big = await raw('/api/docs-json', { 'Accept-Encoding': 'br' });
    expect(big.status).toBe(200);
    expect(big.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(big.body).toString()).openapi).toMatch(/^3\./);

    const small = await t.http().get('/api/public-config').set('Accept-Encoding', 'br').expect(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });
});
