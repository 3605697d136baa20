import { spawn } from 'child_process';
import { readdirSync, readFileSync } from 'fs';
import { get, IncomingHttpHeaders } from 'http';
import { createServer, type AddressInfo } from 'net';
import { join } from 'path';
import { Writable } from 'stream';
import { brotliDecompressSync, gunzipSync } from 'zlib';
import { startTestApp, TestApp } from '../helpers/app';
import { eventually } from '../helpers/redemptions';

/**
 * How the built web app reaches a phone: precompressed copies chosen by Accept-Encoding, hashed assets cached
 * for a year, index.html revalidated on every visit, a real robots.txt, and API JSON over 1 KB compressed.
 * (The project's global setup builds frontend/dist when it is stale.)
 */
describe('web delivery', () => {
  let t: TestApp;
  const assetsDir = join(__dirname, '..', '..', 'frontend', 'dist', 'assets');
  const script = readdirSync(assetsDir).find((f) => f.endsWith('.js') && !f.startsWith('rolldown-runtime'))!;
  const manifest = JSON.parse(readFileSync(join(assetsDir, '..', '.vite', 'manifest.json'), 'utf8'));
  const preload = (module: string) => `<link rel="modulepreload" crossorigin href="/${manifest[module].file}">`;
  // Characters that must be escaped on their way into the page's HTML and JSON.
  const COMPANY = 'Lee & Sons <Licences>';

  /** The answer's bytes as sent, not decoded (supertest and fetch would decompress them). */
  const raw = (path: string, headers: Record<string, string>, base = t.baseUrl) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      get(`${base}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

  /** The request log's lines (LOG_LEVEL=info). */
  const logged: Array<{ msg?: string; req?: { url?: string } }> = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) logged.push(JSON.parse(line));
      done();
    },
  });

  beforeAll(async () => {
    t = await startTestApp(
      { SERVE_FRONTEND: 'true', COMPANY_NAME: COMPANY, SUPPORT_EMAIL: 'help@licences.test', LOG_LEVEL: 'info' },
      { logStream },
    );
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

  it('serves / prerendered: heading and form shell with their CSS, the app loaded after the first paint, the config written in', async () => {
    const res = await raw('/', { 'Accept-Encoding': 'identity' });
    const html = res.body.toString();
    expect(html).toMatch(
      /<h1 [^>]*>Redeem Your Office License<span [^>]*> <!-- -->\| <!-- -->Lee &amp; Sons &lt;Licences&gt;<\/span><\/h1>/,
    );
    expect(html).toMatch(/<form [^>]*aria-label="Redeem your voucher"/);
    expect(html).toMatch(/<input [^>]*id="redeem-voucherCode"/);
    expect(html).toContain('href="mailto:help@licences.test"');
    // The CSS of that markup, as Emotion tags the browser adopts when it hydrates; no web font to wait for.
    expect(html).toMatch(/<style data-emotion="css [^"]+">[^<]*\.css-[^<]+<\/style>/);
    expect(html).not.toMatch(/@font-face/);
    expect(html).not.toContain('%%');
    // Its one script loads the app (the entry and the page's chunks) only once the page has been painted.
    expect(html.match(/<script type="module"[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script type="module" src="\/assets\/page-index-[\w-]+\.js">$/),
    ]);
    const bootPath = /<script type="module" src="([^"]+)">/.exec(html)![1];
    const boot = await t.http().get(bootPath).expect(200);
    expect(boot.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(boot.text).toContain('requestAnimationFrame');
    expect(boot.text).toContain(`"/${manifest['src/features/redeem/RedeemPage.tsx'].file}"`);
    expect(boot.text).toContain(`import("/${manifest['index.html'].file}")`);
    const json = /<script id="public-config" type="application\/json">(.*?)<\/script>/.exec(html)![1];
    expect(json).not.toMatch(/[<>&]/);
    expect(JSON.parse(json)).toEqual({
      supportEmail: 'help@licences.test',
      companyName: COMPANY,
      companyAddress: expect.any(String),
      // Single sign-on is not configured here: the login page shows no "Sign in with …".
      ssoDisplayName: null,
    });
  });

  it('gives each page its own HTML: success pages and the admin login prerendered, unknown paths get the plain shell', async () => {
    /** The one module script of a prerendered page: the generated loader that imports the app after the first paint. */
    const boot = async (html: string, page: string, module: string) => {
      expect(html.match(/<script type="module"[^>]*>/g)).toEqual([
        expect.stringMatching(new RegExp(`^<script type="module" src="/assets/page-${page}-[\\w-]+\\.js">$`)),
      ]);
      const script = await t
        .http()
        .get(/<script type="module" src="([^"]+)">/.exec(html)![1])
        .expect(200);
      expect(script.text).toContain(`"/${manifest[module].file}"`);
      expect(script.text).toContain(`import("/${manifest['index.html'].file}")`);
      expect(html).not.toContain('<link rel="modulepreload"');
      expect(html).not.toContain('%%');
    };
    const macPage = await raw('/success/mac?token=a%2Fb%3Ec', { 'Accept-Encoding': 'identity' });
    const mac = macPage.body.toString();
    // Only "Verifying access..." between the header and the footer: nothing of a result before the token is answered.
    const verifyingOnly = (html: string) => {
      expect(html).toMatch(
        /<main [^>]*><div [^>]*role="status"[^>]*>.*?<p [^>]*>Verifying access\.\.\.<\/p><\/div><\/main>/,
      );
      for (const text of [
        'Redemption Successful!',
        'Download Ready',
        'Processing Your License',
        'Your Product Key',
        'Office Removal Tool',
        'Download Information',
        'Installation Steps',
        'Access Denied',
        '•••••',
      ]) {
        expect(html).not.toContain(text);
      }
      expect(html).toContain('<footer');
    };
    verifyingOnly(mac);
    await boot(mac, 'success-mac', 'src/features/success/MacSuccessPage.tsx');
    // The one API call the page waits for is announced with it, the token encoded.
    expect(macPage.headers['link']).toBe(
      '</api/success-token/a%2Fb%3Ec>; rel=preload; as=fetch; crossorigin=use-credentials',
    );
    expect((await raw('/success/windows', { 'Accept-Encoding': 'identity' })).headers['link']).toBeUndefined();
    expect(mac).toContain('"companyName":"Lee \\u0026 Sons \\u003cLicences\\u003e"');

    const windows = (await raw('/success/windows?token=abc', { 'Accept-Encoding': 'identity' })).body.toString();
    verifyingOnly(windows);
    await boot(windows, 'success-windows', 'src/features/success/WindowsSuccessPage.tsx');

    const geo = (await raw('/geo-blocked/', { 'Accept-Encoding': 'identity' })).body.toString();
    expect(geo).toMatch(/<h1 [^>]*>Access Restricted<\/h1>/);

    // The admin login: its empty form, "Sign In" disabled until the app has taken the page over.
    const login = (await raw('/admin/login', { 'Accept-Encoding': 'identity' })).body.toString();
    expect(login).toMatch(/<h1 [^>]*>Admin Login<\/h1>/);
    expect(login).toMatch(/<input [^>]*id="login-username"/);
    expect(login).toMatch(/<input [^>]*id="login-password"[^>]*type="password"/);
    expect(login).toMatch(/<button [^>]*type="submit" disabled="">Sign In<\/button>/);
    await boot(login, 'admin-login', 'src/features/admin/AdminApp.tsx');

    for (const path of ['/no/such/page', '/admin', '/pages/index.html', '/index.html', '/GEO-BLOCKED']) {
      const shell = await raw(path, { 'Accept-Encoding': 'identity' });
      expect(shell.status).toBe(200);
      expect(shell.body.toString()).toContain('<div id="root"></div>');
      expect(shell.body.toString()).not.toContain('%%');
      expect(shell.body.toString()).not.toContain(preload('src/features/redeem/RedeemPage.tsx'));
    }
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

  it('behind the shipped HAProxy, pages, assets and API JSON arrive as the API compressed them (once, Brotli kept)', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const api = new URL(t.baseUrl).host;
    const proxy = spawn('haproxy', ['-db', '-f', join(__dirname, '..', '..', 'docker', 'haproxy.cfg')], {
      env: { ...process.env, LISTEN: `127.0.0.1:${port}`, API1: api, API2: api },
      stdio: 'ignore',
    });
    try {
      const base = `http://127.0.0.1:${port}`;
      // Up once both servers pass the health check (every 2 s); never up is a failure, not a silent carry-on.
      await eventually(
        async () => (await raw('/api/health', {}, base).catch(() => undefined))?.status === 200,
        15_000,
        'the API to answer /api/health through HAProxy',
      );
      const page = await raw('/', { 'Accept-Encoding': 'gzip, deflate, br' }, base);
      expect(page.headers['content-encoding']).toBe('br');
      expect(brotliDecompressSync(page.body).toString()).toContain('<div id="root">');
      const asset = await raw(`/assets/${script}`, { 'Accept-Encoding': 'gzip' }, base);
      expect(asset.headers['content-encoding']).toBe('gzip');
      expect(gunzipSync(asset.body)).toEqual(readFileSync(join(assetsDir, script)));
      const json = await raw('/api/docs-json', { 'Accept-Encoding': 'br' }, base);
      expect(json.headers['content-encoding']).toBe('br');
      expect(JSON.parse(brotliDecompressSync(json.body).toString()).openapi).toMatch(/^3\./);
    } finally {
      proxy.kill();
    }
  });

  it('compresses API JSON over 1 KB and leaves small answers alone', async () => {
    const big = await raw('/api/docs-json', { 'Accept-Encoding': 'br' });
    expect(big.status).toBe(200);
    expect(big.headers['content-encoding']).toBe('br');
    expect(JSON.parse(brotliDecompressSync(big.body).toString()).openapi).toMatch(/^3\./);

    const small = await t.http().get('/api/public-config').set('Accept-Encoding', 'br').expect(200);
    expect(small.headers['content-encoding']).toBeUndefined();
  });

  it("logs the API's requests, not the web app's files", async () => {
    const page = await raw('/', { 'Accept-Encoding': 'identity' });
    const asset = await raw(`/assets/${script}`, { 'Accept-Encoding': 'identity' });
    const api = await raw('/api/public-config', { 'Accept-Encoding': 'identity' });
    expect([page.status, asset.status, api.status]).toEqual([200, 200, 200]);
    await eventually(
      async () => logged.some((line) => line.msg === 'request completed' && line.req?.url === '/api/public-config'),
      5_000,
      'the API request logged',
    );
    const urls = logged.filter((line) => line.msg === 'request completed').map((line) => line.req?.url);
    expect(urls).not.toContain('/');
    expect(urls).not.toContain(`/assets/${script}`);
    expect(api.headers['x-request-id']).toBeTruthy();
  });
});
