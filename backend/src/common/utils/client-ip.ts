import type { Request } from 'express';

/** The client address as Express sees it: `X-Forwarded-For` only counts when TRUST_PROXY allows it. */
export function clientIp(req: Request): string {
  const ip = req.ip ?? req.socket.remoteAddress ?? '';
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}
