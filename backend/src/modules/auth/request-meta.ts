import type { Request } from 'express';
import { clientIp } from '../../common/utils/client-ip';

/** Where a request came from, as stored on sessions and audit rows. */
export interface RequestMeta {
  ipAddress: string;
  userAgent: string | null;
}

export function requestMeta(req: Request): RequestMeta {
  const agent = req.headers['user-agent'];
  return { ipAddress: clientIp(req), userAgent: agent ? agent.slice(0, 500) : null };
}
