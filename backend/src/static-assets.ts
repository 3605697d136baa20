import compression from 'compression';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { existsSync } from 'fs';
import { join, sep } from 'path';

/** Hashed file names never change content: a year, and the browser need not even revalidate. */
const IMMUTABLE = 'public, max-age=31536000, immutable';

/**
 * The built web app (frontend/dist): the Brotli or gzip copy the build wrote beside each text file, the one
 * the browser prefers (`Content-Encoding`, `Vary: Accept-Encoding`); hashed `/assets/` cached for a year,
 * everything else (index.html, robots.txt) `no-cache` so a deploy is seen at once (revalidated by ETag).
 * Every other GET outside /api and /socket.io gets index.html and the client router picks the screen.
 */
export function frontendMiddleware(dist: string): RequestHandler {
  const files = expressStaticGzip(dist, {
    enableBrotli: true,
    orderPreference: ['br', 'gz'],
    index: false,
    serveStatic: {
      index: false,
      setHeaders: (res, path) => res.setHeader('Cache-Control', path.includes(`${sep}assets${sep}`) ? IMMUTABLE : 'no-cache'),
    },
  });
  const index = join(dist, 'index.html');
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    if (req.path.startsWith('/api') || req.path.startsWith('/socket.io')) return next();
    files(req, res, () => {
      // A chunk that does not exist must not come back as an HTML page the browser tries to run.
      if (req.path.startsWith('/assets/')) return res.status(404).type('text').send('Not found');
      if (!existsSync(index)) return res.status(503).type('text').send('The web app is not built yet: run npm run build');
      req.url = '/index.html';
      files(req, res, next);
    });
  };
}

/**
 * API answers over 1 KB are compressed (Brotli when accepted, else gzip) when they are JSON. Streamed
 * exports are left alone: they are flushed as they are written and their speed is measured against COPY.
 */
export function apiCompression(): RequestHandler {
  return compression({
    threshold: 1024,
    filter: (_req, res) => String(res.getHeader('Content-Type') ?? '').startsWith('application/json'),
  });
}
