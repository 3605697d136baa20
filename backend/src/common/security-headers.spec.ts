import { IncomingMessage, ServerResponse } from 'http';
import { Socket } from 'net';
import helmet from 'helmet';
import type { Request, Response } from 'express';
import { securityHeaders } from './security-headers';

function response(): { req: Request; res: Response } {
  const req = new IncomingMessage(new Socket());
  const res = new ServerResponse(req);
  res.setHeader('X-Powered-By', 'Express');
  return { req: req as Request, res: res as unknown as Response };
}

describe('securityHeaders', () => {
  it.each([{ crossOriginEmbedderPolicy: false }, {}])('sets exactly the headers helmet(%j) sets', (options) => {
    const byHelmet = response();
    helmet(options)(byHelmet.req, byHelmet.res, () => undefined);
    const replayed = response();
    let nextCalls = 0;
    securityHeaders(options)(replayed.req, replayed.res, () => nextCalls++);
    expect(nextCalls).toBe(1);
    expect(replayed.res.getHeaders()).toEqual(byHelmet.res.getHeaders());
    expect(replayed.res.getHeader('x-powered-by')).toBeUndefined();
    expect(replayed.res.getHeader('content-security-policy')).toBe(byHelmet.res.getHeader('content-security-policy'));
  });
});
