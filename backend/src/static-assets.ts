import compression from 'compression';
import { createHash } from 'crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { existsSync, readdirSync, readFileSync, statSync } from 'fs';
import Negotiator from 'negotiator';
import { join, sep } from 'path';
import { promisify } from 'util';
import { brotliCompress, constants as zlib, gzip as gzipCallback } from 'zlib';
import type { PublicConfig } from './modules/public-config/public-config';

/** Hashed file names never change content: a year, and the browser need not even revalidate. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The strings the build's prerendered markup carries in place of the public config
 * (frontend/build/page-files.mts names the same three), and the element the page reads the config from.
 */
type TextKey = 'supportEmail' | 'companyName' | 'companyAddress';
const PLACEHOLDERS: Record<TextKey, string> = {
  supportEmail: '%%SUPPORT_EMAIL%%',
  companyName: '%%COMPANY_NAME%%',
  companyAddress: '%%COMPANY_ADDRESS%%',
};
const CONFIG_ELEMENT = '<script id="public-config" type="application/json"></script>';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
/** JSON inside a <script> element: nothing in it may close the element or start a comment. */
const scriptJson = (value: unknown) =>
  JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A built page with this deployment's public config in it, compressed once. */
interface Page {
  etag: string;
  identity: Buffer;
  br: Buffer;
  gzip: Buffer;
}

const brotli = promisify(brotliCompress);
const gzip = promisify(gzipCallback);

async function renderPage(html: string, config: PublicConfig): Promise<Page> {
  let text = html.replace(CONFIG_ELEMENT, CONFIG_ELEMENT.replace('><', `>${scriptJson(config)}<`));
  for (const key of Object.keys(PLACEHOLDERS) as TextKey[]) {
    text = text.replaceAll(PLACEHOLDERS[key], escapeHtml(config[key]));
  }
  const identity = Buffer.from(text);
  const [br, gz] = await Promise.all([
    brotli(identity, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: identity.length } }),
    gzip(identity, { level: 9 }),
  ]);
  // Weak: the br, gzip and plain bodies are the same page, not the same bytes.
  return {
    etag: `W/"${createHash('sha256').update(identity).digest('base64url').slice(0, 27)}"`,
    identity,
    br,
    gzip: gz,
  };
}

/**
 * The HTML for a path: the page the build wrote for it (`pages/success/mac.html` for `/success/mac`,
 * prerendered), else index.html, which the client router turns into any screen.
 * Each file is read and compressed once (again when a new build replaces it), off the event loop, and all
 * of them right away, so no visitor waits for Brotli's highest level.
 */
function htmlPages(dist: string, config: PublicConfig): (path: string) => Promise<Page> | undefined {
  const cache = new Map<string, { mtimeMs: number; page: Promise<Page> }>();
  const load = (file: string): Promise<Page> | undefined => {
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat?.isFile()) return undefined;
    let entry = cache.get(file);
    if (entry?.mtimeMs !== stat.mtimeMs) {
      entry = { mtimeMs: stat.mtimeMs, page: renderPage(readFileSync(file, 'utf8'), config) };
      entry.page.catch(() => cache.delete(file));
      cache.set(file, entry);
    }
    return entry.page;
  };
  const pagesDir = join(dist, 'pages');
  const built = existsSync(pagesDir)
    ? readdirSync(pagesDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.html'))
    : [];
  for (const file of [join(dist, 'index.html'), ...built.map((f) => join(pagesDir, f))]) {
    load(file)?.catch(() => undefined);
  }
  return (path) => {
    const route = path.replace(/\/+$/, '');
    // Plain route paths only (lower-case words and dashes), so no request names a file of its own choosing.
    const own = route === '' ? 'index' : /^(\/[a-z0-9-]+)+$/.test(route) ? route.slice(1) : undefined;
    return (own !== undefined ? load(join(pagesDir, `${own}.html`)) : undefined) ?? load(join(dist, 'index.html'));
  };
}

/**
 * A success page's answer waits for one API call, `GET /api/success-token/{token}` (the token is in the
 * page's address; the page's frame is prerendered). Announcing it with the page lets the browser fetch it
 * while the scripts still load; the page's own request (same URL, credentials included) then takes the
 * preloaded answer.
 */
function successTokenPreload(req: Request): string | undefined {
  if (!/^\/success\/(windows|mac)\/?$/i.test(req.path)) return undefined;
  const token = new URL(req.originalUrl, 'http://localhost').searchParams.get('token')?.trim();
  return token
    ? `</api/success-token/${encodeURIComponent(token)}>; rel=preload; as=fetch; crossorigin=use-credentials`
    : undefined;
}

function sendPage(req: Request, res: Response, page: Page): void {
  // Brotli when the browser takes it, even where it lists gzip first ("gzip, deflate, br").
  const encoding = (
    new Negotiator(req).encoding as (available: string[], options: { preferred: string[] }) => string | undefined
  )(['br', 'gzip', 'identity'], { preferred: ['br', 'gzip', 'identity'] });
  res.setHeader('Content-Type', 'text/html; charset=utf-8');
  res.setHeader('Cache-Control', 'no-cache');
  res.setHeader('Vary', 'Accept-Encoding');
  res.setHeader('ETag', page.etag);
  const preload = successTokenPreload(req);
  if (preload) res.setHeader('Link', preload);
  if (req.fresh) {
    res.status(304).end();
    return;
  }
  const body = encoding === 'br' ? page.br : encoding === 'gzip' ? page.gzip : page.identity;
  if (body !== page.identity) res.setHeader('Content-Encoding', encoding!);
  res.setHeader('Content-Length', body.length);
  res.status(200).end(req.method === 'HEAD' ? undefined : body);
}

/**
 * The built web app (frontend/dist). Static files: the Brotli or gzip copy the build wrote beside each text
 * file, the one the browser prefers (`Content-Encoding`, `Vary: Accept-Encoding`); hashed `/assets/` cached
 * for a year, everything else (robots.txt) `no-cache` so a deploy is seen at once (revalidated by ETag).
 * Every other GET outside /api and /socket.io gets an HTML page (see htmlPages), `no-cache` and revalidated
 * by ETag too, with the public config written in: the first render shows the company name and support
 * address without asking the API for them.
 */
export function frontendMiddleware(dist: string, config: PublicConfig): RequestHandler {
  const files = expressStaticGzip(dist, {
    enableBrotli: true,
    orderPreference: ['br', 'gz'],
    index: false,
    serveStatic: {
      index: false,
      setHeaders: (res, path) =>
        res.setHeader('Cache-Control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache'),
    },
  });
  const pages = htmlPages(dist, config);
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path.startsWith('/api') || req.path.startsWith('/socket.io') || req.path === '/metrics') return next();
    // Pages are served with the config in them, never as the files the build wrote.
    if (req.path.endsWith('.html') || req.path.startsWith('/pages/')) return sendHtml();
    files(req, res, sendHtml);

    function sendHtml() {
      // A chunk that does not exist must not come back as an HTML page the browser tries to run.
      if (req.path.startsWith('/assets/')) return res.status(404).type('text').send('Not found');
      const page = pages(req.path);
      if (!page) return res.status(503).type('text').send('The web app is not built yet: run npm run build');
      page.then((p) => sendPage(req, res, p), next);
    }
  };
}

/**
 * API read answers (GET) over 1 KB are compressed (Brotli when accepted, else gzip) when they are JSON. Streamed
 * exports are left alone: they are flushed as they are written and their speed is measured against COPY.
 */
export function apiCompression(): RequestHandler {
  const compress = compression({
    threshold: 1024,
    filter: (_req, res) => String(res.getHeader('Content-Type') ?? '').startsWith('application/json'),
  });
  // Only reads answer more than a few hundred bytes; a write (the redemption above all) skips the wrapping.
  return (req, res, next) => (req.method === 'GET' ? compress(req, res, next) : next());
}
